"""The numbers that bound a rule script (the README's sandbox section quotes them).

Every limit that decides a run's outcome is counted in VM instructions or sizes, so the same
level and seed end the same way on an idle or a loaded machine. C library work a script triggers
(pattern matching, string building, sorting, API calls) is charged to the same instruction
budget. Clocks are backstops only: CPU time for the few operations instruction counting cannot
see (concatenating or comparing strings of megabytes), wall time for a machine too overloaded to
run the script at all.
"""
from __future__ import annotations

CALL_BUDGET = 2_000_000          # instructions per callback (on_start, a timer, an event)
RUN_BUDGET = 50_000_000          # instructions per script over a whole run (the KB rules use ~10k)
MEMORY_MB = 32                   # heap of one script's Lua runtime
CALL_CPU_S = 2.0                 # CPU-time backstop per callback
RUN_CPU_S = 20.0                 # CPU-time backstop per script over a whole run
WALL_FACTOR = 10.0               # wall-clock backstop = this many times the CPU limit ("machine overloaded")

MAX_STRING = 1 << 20             # longest string string.rep/gsub/format/table.concat may build
MAX_PATTERN = 256                # longest pattern (or plain search string) accepted
MAX_PATTERN_WORK = 5e7           # worst-case matcher steps one pattern call may cost
PATTERN_STEPS_PER_INSTRUCTION = 16   # matcher steps charged as one instruction
BYTES_PER_INSTRUCTION = 16       # bytes a C string/table function handles per charged instruction
MAX_CONVERT_BYTES = 1 << 20      # bytes of text one API call may pass to the host (or a callback return)
MAX_TABLE_LEN = 1 << 22          # longest table the shifting table functions accept
CALL_COST = 1_000                # instructions charged to the run budget per callback (the host's call overhead)
API_CALL_COST = 64               # instructions charged per rule API call
API_ITEM_COST = 4                # ... plus this per value converted between Lua and Python
ORDER_UNIT_COST = 200            # instructions per unit an order() names (the host checks and moves each)
PATH_CELL_COST = 4               # instructions per map cell when an order's destination needs a new path field
OUTPUT_LIMIT = 1 << 20           # bytes log/message/mark/print together may receive per run

MAX_TIMERS = 256                 # pending every()/at() timers per script
MAX_AREAS = 64                   # area triggers per script
MAX_SPAWN_PER_CALL = 200         # units one spawn() call may create
MAX_SPAWN_PER_RUN = 2_000        # units all rules together may spawn in one run
MAX_MARKERS = 200                # map markers per run
MAX_COORD = 1e6                  # |x|, |y|, radius and times beyond this are refused as nonsense
MAX_RESOURCE_GRANT = 1e9         # largest give/take/transfer_resources amount per call
MAX_IDS = 2_000                  # unit ids one call that takes ids (damage, heal, set_team ...) may name
MAX_HP_CHANGE = 1e6              # largest damage or heal amount per unit and call
MAX_SIGHT = 40.0                 # tiles: the widest sight set_sight may give (the catalog's widest is 30)
MAX_SHAPES = 32                  # area shapes alive at once (all rules together)
