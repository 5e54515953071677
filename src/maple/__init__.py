"""maple as a library: the values, decisions, ports and use cases, the stores, and the setup.

Everything a library user needs is here, imported at once and listed once (``__all__``, which
takes the whole error hierarchy as ``maple_core.errors`` lists it); each name also stays in its
home module (``maple_core.comments``, ``maple_adapters.files.store``…). See ``docs/library.md``.
"""

from __future__ import annotations

from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.log import ServerLog
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_adapters.system import SystemClock
from maple_core import errors as _errors
from maple_core.anchors import Anchor, RegionMember
from maple_core.approvals import Approval, NewApproval
from maple_core.branch_gate import decide_branch_gate, publish_gate
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.context import CommentContext, comment_context
from maple_core.conversation import ConversationError, Reply, ReplyKind, Role
from maple_core.cursor import EPOCH_CURSOR, FreshComments, newest_first, select_fresh
from maple_core.errors import ConfigurationError as ConfigurationError
from maple_core.errors import CorruptLedgerError as CorruptLedgerError
from maple_core.errors import InvalidCursorError as InvalidCursorError
from maple_core.errors import InvalidInputError as InvalidInputError
from maple_core.errors import InvalidMediaKeyError as InvalidMediaKeyError
from maple_core.errors import InvalidQueryError as InvalidQueryError
from maple_core.errors import InvalidRecordError as InvalidRecordError
from maple_core.errors import LedgerFullError as LedgerFullError
from maple_core.errors import MapleError as MapleError
from maple_core.errors import MissingCapabilityError as MissingCapabilityError
from maple_core.errors import NotFoundError as NotFoundError
from maple_core.errors import StoreError as StoreError
from maple_core.errors import StoreRejectedError as StoreRejectedError
from maple_core.errors import StoreUnavailableError as StoreUnavailableError
from maple_core.errors import UnreadableLedgerError as UnreadableLedgerError
from maple_core.errors import UnsafePathError as UnsafePathError
from maple_core.errors import UnverifiedCommitError as UnverifiedCommitError
from maple_core.gate import (
    GateConclusion,
    GatePolicy,
    GateReason,
    GateReport,
    GateVerdict,
    decide_gate,
)
from maple_core.gate_ports import GatePublisher, GateRefresher
from maple_core.gate_rules import GateRules
from maple_core.listing import list_all
from maple_core.media import MediaRef
from maple_core.page_context import Context
from maple_core.paging import CommentPage, ListQuery
from maple_core.ports import Capability, ChangeSignal, Clock, CommentConversation, CommentStore
from maple_core.reporting import converse_and_report, report_to_gate, resolve_and_report
from maple_core.resolving import converse, resolve_comment
from maple_core.statuses import BLOCKING_STATUSES, CommentStatus
from maple_core.stop import MAX_BLOCKS, StopDecision, decide_stop
from maple_core.stop_budget import decide_loop_count_stop, decide_session_stop
from maple_core.stop_payload import StopPayload, parse_stop_payload
from maple_core.targets import Fix, GateTarget, NotPublished, Published, PublishOutcome
from maple_core.thread_events import ThreadEvent
from maple_core.wait import clamp_wait_ms
from maple_core.waiting import wait_for_comments
from maple_core.worklist import worklist
from maple_entrypoints.bootstrap.agent_loop import AgentLoop, agent_loop
from maple_entrypoints.configuration import Settings
from maple_entrypoints.route.app import RouteOptions, create_route_app

__all__ = [
    "AgentLoop",
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
    "Context",
    "ConversationError",
    "EPOCH_CURSOR",
    "FileCommentStore",
    "FileMedia",
    "Fix",
    "FreshComments",
    "GateConclusion",
    "GatePolicy",
    "GatePublisher",
    "GateReason",
    "GateRefresher",
    "GateReport",
    "GateRules",
    "GateTarget",
    "GateVerdict",
    "InMemoryCommentStore",
    "InMemoryGatePublisher",
    "ListQuery",
    "MAX_BLOCKS",
    "MediaRef",
    "NewApproval",
    "NewComment",
    "NotPublished",
    "PublishOutcome",
    "Published",
    "RegionMember",
    "Reply",
    "ReplyKind",
    "Resolution",
    "Role",
    "RouteOptions",
    "ServerLog",
    "Settings",
    "StopDecision",
    "StopPayload",
    "SystemClock",
    "ThreadEvent",
    "agent_loop",
    "clamp_wait_ms",
    "comment_context",
    "converse",
    "converse_and_report",
    "create_route_app",
    "decide_branch_gate",
    "decide_gate",
    "decide_loop_count_stop",
    "decide_session_stop",
    "decide_stop",
    "list_all",
    "newest_first",
    "parse_stop_payload",
    "publish_gate",
    "report_to_gate",
    "resolve_and_report",
    "resolve_comment",
    "select_fresh",
    "wait_for_comments",
    "worklist",
]
__all__ += _errors.__all__
__all__.sort()
