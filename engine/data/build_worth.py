"""Re-measure the unit worth table in engine/data/unit_worth.json (see engine.engagement).

    python -m engine.data.build_worth            # measures and writes it
    python -m engine.data.build_worth --check    # only verifies that the file is up to date
"""
from __future__ import annotations

import argparse
import json
import sys

from engine.engagement import WORTH_PATH, measure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs from a new measurement")
    args = parser.parse_args(argv)
    table = measure()
    if args.check:
        current = json.loads(WORTH_PATH.read_text(encoding="utf-8"))
        if current != table:
            print(f"{WORTH_PATH} is stale: run python -m engine.data.build_worth", file=sys.stderr)
            return 1
        print(f"{WORTH_PATH} is up to date")
        return 0
    WORTH_PATH.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {WORTH_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
