"""maple's pure domain core: values, decisions and ports, standard library only."""

from maple_core.approvals import Approval, NewApproval
from maple_core.comments import Anchor, Comment, Context, NewComment, RegionMember, Resolution
from maple_core.cursor import EPOCH_CURSOR, FreshComments, newest_first, select_fresh
from maple_core.errors import (
    ConfigurationError,
    CorruptLedgerError,
    InvalidCursorError,
    InvalidInputError,
    InvalidMediaKeyError,
    InvalidQueryError,
    InvalidRecordError,
    MapleError,
    MissingCapabilityError,
    NotFoundError,
    StoreError,
    StoreUnavailableError,
)
from maple_core.gate import GateConclusion, GatePolicy, GateReason, GateVerdict, decide_gate
from maple_core.media import MediaRef
from maple_core.paging import CommentPage, ListQuery
from maple_core.ports import Capability, ChangeSignal, Clock, CommentStore
from maple_core.services import list_all, resolve_comment, wait_for_comments
from maple_core.statuses import BLOCKING_STATUSES, CommentStatus
from maple_core.stop import (
    MAX_BLOCKS,
    StopDecision,
    StopPayload,
    decide_session_stop,
    decide_stop,
    parse_stop_payload,
    worklist,
)
from maple_core.wait import clamp_wait_ms

__all__ = [
    "Anchor",
    "Approval",
    "BLOCKING_STATUSES",
    "Capability",
    "ChangeSignal",
    "Clock",
    "Comment",
    "CommentPage",
    "CommentStatus",
    "CommentStore",
    "ConfigurationError",
    "Context",
    "CorruptLedgerError",
    "EPOCH_CURSOR",
    "FreshComments",
    "GateConclusion",
    "GatePolicy",
    "GateReason",
    "GateVerdict",
    "InvalidCursorError",
    "InvalidInputError",
    "InvalidMediaKeyError",
    "InvalidQueryError",
    "InvalidRecordError",
    "ListQuery",
    "MAX_BLOCKS",
    "MapleError",
    "MediaRef",
    "MissingCapabilityError",
    "NewApproval",
    "NewComment",
    "NotFoundError",
    "RegionMember",
    "Resolution",
    "StopDecision",
    "StopPayload",
    "StoreError",
    "StoreUnavailableError",
    "clamp_wait_ms",
    "decide_gate",
    "decide_session_stop",
    "decide_stop",
    "list_all",
    "newest_first",
    "parse_stop_payload",
    "resolve_comment",
    "select_fresh",
    "wait_for_comments",
    "worklist",
]
