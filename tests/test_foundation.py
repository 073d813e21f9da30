"""The package installs and its entry points answer without tracebacks."""
import subprocess
import sys

from typer.testing import CliRunner

from genesis.cli import app


def test_cli_help_lists_new():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "new" in result.output


def test_engine_package_importable():
    out = subprocess.run([sys.executable, "-c", "import engine, genesis; print('ok')"], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
