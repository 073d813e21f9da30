"""What the KB's command line needs without loading the store (pydantic models, chromadb)."""
from genesis.infra import InfraError

COLLECTIONS = ("gdds", "rules", "levels", "lessons")


class KBError(Exception):
    """Any knowledge-base failure with a message fit for the user."""


class KBIndexDamaged(KBError):
    """The embedded index cannot be read (a damaged chroma.sqlite3 or segment): it is derived from
    the sources, so rebuilding it loses nothing."""


class KBSourceError(KBError):
    """A source file under the KB root is missing or malformed."""


class KBConflictError(KBError):
    """A commit would replace a different artifact with the same id."""


class KBCommitError(KBError):
    """A commit failed and was rolled back."""


class KBUnavailableError(KBError, InfraError):
    """The KB's chroma server or committer could not be reached: no verdict on what was being made."""


class KBAuthError(KBError):
    """The KB's chroma server refused this process's token (none, or another): a setting to fix, not an outage."""
