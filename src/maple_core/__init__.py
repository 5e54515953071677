"""maple's pure domain core: values, decisions and ports, standard library only.

Names are imported on first use, so the Stop hook loads only the modules it needs.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.approvals import Approval, NewApproval
    from maple_core.comments import (
        Anchor,
        Comment,
        Context,
        NewComment,
        RegionMember,
        Resolution,
    )
    from maple_core.context import CommentContext, comment_context
    from maple_core.conversation import ConversationError, Reply, ReplyKind, Role, ThreadEvent
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
        StoreRejectedError,
        StoreUnavailableError,
    )
    from maple_core.gate import (
        GateConclusion,
        GatePolicy,
        GateReason,
        GateReport,
        GateVerdict,
        decide_gate,
    )
    from maple_core.media import MediaRef
    from maple_core.paging import CommentPage, ListQuery
    from maple_core.ports import (
        Capability,
        ChangeSignal,
        Clock,
        CommentConversation,
        CommentStore,
        GatePublisher,
    )
    from maple_core.reporting import PublishOutcome, publish_gate
    from maple_core.services import list_all, resolve_comment, wait_for_comments
    from maple_core.statuses import BLOCKING_STATUSES, CommentStatus
    from maple_core.stop import (
        MAX_BLOCKS,
        StopDecision,
        StopPayload,
        decide_loop_count_stop,
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
    "CommentContext",
    "CommentConversation",
    "CommentPage",
    "CommentStatus",
    "CommentStore",
    "ConfigurationError",
    "Context",
    "ConversationError",
    "CorruptLedgerError",
    "EPOCH_CURSOR",
    "FreshComments",
    "GateConclusion",
    "GatePolicy",
    "GatePublisher",
    "GateReason",
    "GateReport",
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
    "PublishOutcome",
    "RegionMember",
    "Reply",
    "ReplyKind",
    "Resolution",
    "Role",
    "StopDecision",
    "StopPayload",
    "StoreError",
    "StoreRejectedError",
    "StoreUnavailableError",
    "ThreadEvent",
    "clamp_wait_ms",
    "comment_context",
    "decide_gate",
    "decide_loop_count_stop",
    "decide_session_stop",
    "decide_stop",
    "list_all",
    "newest_first",
    "parse_stop_payload",
    "publish_gate",
    "resolve_comment",
    "select_fresh",
    "wait_for_comments",
    "worklist",
]

_HOMES = {
    "Anchor": "maple_core.comments",
    "Approval": "maple_core.approvals",
    "BLOCKING_STATUSES": "maple_core.statuses",
    "Capability": "maple_core.ports",
    "ChangeSignal": "maple_core.ports",
    "Clock": "maple_core.ports",
    "Comment": "maple_core.comments",
    "CommentContext": "maple_core.context",
    "CommentConversation": "maple_core.ports",
    "CommentPage": "maple_core.paging",
    "CommentStatus": "maple_core.statuses",
    "CommentStore": "maple_core.ports",
    "ConfigurationError": "maple_core.errors",
    "Context": "maple_core.comments",
    "ConversationError": "maple_core.conversation",
    "CorruptLedgerError": "maple_core.errors",
    "EPOCH_CURSOR": "maple_core.cursor",
    "FreshComments": "maple_core.cursor",
    "GateConclusion": "maple_core.gate",
    "GatePolicy": "maple_core.gate",
    "GatePublisher": "maple_core.ports",
    "GateReason": "maple_core.gate",
    "GateReport": "maple_core.gate",
    "GateVerdict": "maple_core.gate",
    "InvalidCursorError": "maple_core.errors",
    "InvalidInputError": "maple_core.errors",
    "InvalidMediaKeyError": "maple_core.errors",
    "InvalidQueryError": "maple_core.errors",
    "InvalidRecordError": "maple_core.errors",
    "ListQuery": "maple_core.paging",
    "MAX_BLOCKS": "maple_core.stop",
    "MapleError": "maple_core.errors",
    "MediaRef": "maple_core.media",
    "MissingCapabilityError": "maple_core.errors",
    "NewApproval": "maple_core.approvals",
    "NewComment": "maple_core.comments",
    "NotFoundError": "maple_core.errors",
    "PublishOutcome": "maple_core.reporting",
    "RegionMember": "maple_core.comments",
    "Reply": "maple_core.conversation",
    "ReplyKind": "maple_core.conversation",
    "Resolution": "maple_core.comments",
    "Role": "maple_core.conversation",
    "StopDecision": "maple_core.stop",
    "StopPayload": "maple_core.stop",
    "StoreError": "maple_core.errors",
    "StoreRejectedError": "maple_core.errors",
    "StoreUnavailableError": "maple_core.errors",
    "ThreadEvent": "maple_core.conversation",
    "clamp_wait_ms": "maple_core.wait",
    "comment_context": "maple_core.context",
    "decide_gate": "maple_core.gate",
    "decide_loop_count_stop": "maple_core.stop",
    "decide_session_stop": "maple_core.stop",
    "decide_stop": "maple_core.stop",
    "list_all": "maple_core.services",
    "newest_first": "maple_core.cursor",
    "parse_stop_payload": "maple_core.stop",
    "publish_gate": "maple_core.reporting",
    "resolve_comment": "maple_core.services",
    "select_fresh": "maple_core.cursor",
    "wait_for_comments": "maple_core.services",
    "worklist": "maple_core.stop",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
