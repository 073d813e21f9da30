"""`python -m genesis`, as the `genesis` command."""
from genesis.cli import main

main()
