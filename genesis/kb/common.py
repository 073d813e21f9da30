"""What the KB's command line needs without loading the store (pydantic models, chromadb)."""
from genesis.infra import InfraError

COLLECTIONS = ("gdds", "rules", "levels", "lessons")


class KBError(Exception):
    """Any knowledge-base failure with a message fit for the user."""


class KBSourceError(KBError):
    """A source file under the KB root is missing or malformed."""


class KBConflictError(KBError):
    """A commit would replace a different artifact with the same id."""


class KBCommitError(KBError):
    """A commit failed and was rolled back."""


class KBUnavailableError(KBError, InfraError):
    """The KB's chroma server or committer could not be reached: no verdict on what was being made."""
