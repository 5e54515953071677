"""One error hierarchy for maple; every message says what went wrong and how to fix it.

::

    MapleError
    ├── ConfigurationError        a setting is missing, empty or unknown
    ├── InvalidInputError         a caller passed something maple cannot use
    │   ├── InvalidQueryError     a page limit or page cursor is wrong
    │   ├── InvalidCursorError    a wait cursor is not a timestamp
    │   ├── InvalidRecordError    a stored or submitted record has the wrong shape
    │   └── InvalidMediaKeyError  a media key is not a bare name
    └── StoreError                a store could not do what was asked
        ├── NotFoundError         no comment or approval has that id
        ├── CorruptLedgerError    the stored ledger cannot be read; it is left untouched
        │   └── UnreadableLedgerError  a trusted pull-request ledger cannot be read
        ├── MissingCapabilityError the store cannot do this kind of operation at all
        ├── StoreRejectedError    the store refused the request; trying again will not help
        │   └── LedgerFullError   the write would make the ledger larger than its store keeps
        ├── StoreUnavailableError the store could not be reached; trying again may work
        └── UnsafePathError       a path under .maple/ is a symbolic link; it is not followed
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "CorruptLedgerError",
    "InvalidCursorError",
    "InvalidInputError",
    "InvalidMediaKeyError",
    "InvalidQueryError",
    "InvalidRecordError",
    "LedgerFullError",
    "MapleError",
    "MissingCapabilityError",
    "NotFoundError",
    "StoreError",
    "StoreRejectedError",
    "StoreUnavailableError",
    "UnreadableLedgerError",
    "UnsafePathError",
    "UnverifiedCommitError",
]


class MapleError(Exception):
    """Base of every error maple raises on purpose."""


class ConfigurationError(MapleError):
    """Raised when a setting is missing, empty, unknown or contradicts another."""


class InvalidInputError(MapleError, ValueError):
    """Raised when a caller passes a value maple cannot use."""


class InvalidQueryError(InvalidInputError):
    """Raised when a page limit is not positive or a page cursor was not issued by the store."""


class InvalidCursorError(InvalidInputError):
    """Raised when a wait cursor is not an ISO 8601 timestamp."""


class InvalidRecordError(InvalidInputError):
    """Raised when a comment, approval or ledger record has the wrong shape."""


class UnverifiedCommitError(InvalidInputError):
    """Raised when a resolution names a commit the checkout's HEAD cannot reach."""


class InvalidMediaKeyError(InvalidInputError):
    """Raised when a media key is empty or holds anything but letters, digits, ``_`` and ``-``."""


class StoreError(MapleError):
    """Raised when a store cannot complete an operation.

    Attributes:
        store: the store's name, such as ``file``.
        operation: the operation that failed, such as ``set_status``.
    """

    def __init__(self, message: str, *, store: str, operation: str) -> None:
        super().__init__(message)
        self.store = store
        self.operation = operation


class NotFoundError(StoreError, LookupError):
    """Raised when no comment or approval has the given id; retrying will not help."""


class CorruptLedgerError(StoreError):
    """Raised when a stored ledger is not a Maple ledger; maple refuses to overwrite it."""


class UnreadableLedgerError(CorruptLedgerError):
    """Raised when a ledger written by a trusted writer cannot be read (bad JSON, a newer version).

    The merge gate blocks on it rather than guessing; ``location`` names the ledger (a URL).
    """

    def __init__(self, message: str, *, store: str, operation: str, location: str) -> None:
        super().__init__(message, store=store, operation=operation)
        self.location = location


class MissingCapabilityError(StoreError):
    """Raised when a store cannot do this kind of operation at all."""


class StoreRejectedError(StoreError):
    """Raised when a store refused a request (credentials, permissions); retrying will not help."""


class LedgerFullError(StoreRejectedError):
    """Raised when a write would make a ledger larger than its store can keep.

    Nothing was written; the message names the limit and what to shorten or remove.
    """


class StoreUnavailableError(StoreError):
    """Raised when a store could not be reached or timed out; the same call may work later."""


class UnsafePathError(StoreError):
    """Raised when a path under ``.maple/`` is a symbolic link, or not a folder where one belongs.

    maple never reads, writes, creates or locks anything through such a path; it is left as is.
    """
