"""How a dataset message becomes learn content for an outside agent.

An outside agent sees only text, so the date, session and speaker go into the text itself
(as well as into the wire fields): an agent that just stores strings can still answer "when".
"""

from __future__ import annotations

from benchmarker.agent.adapters.contract import LearnItem
from benchmarker.datasets.schema import Message, Session


def message_text(message: Message, session: Session) -> str:
    """`[2023/05/20 (Sat) 02:21] session <id> user: text`."""
    return f"[{session.date}] session {session.session_id} {message.role}: {message.content}"


def learn_item(message: Message, session: Session, *, case_id: str = "", turn: int | None = None) -> LearnItem:
    """One message as the adapter's `learn` argument; its key names it (case / session / turn)."""
    key = f"{case_id}/{session.session_id}/{turn}" if turn is not None else ""
    return LearnItem(content=message_text(message, session), role=message.role,
                     session_id=session.session_id, date=session.date, key=key)


def session_items(session: Session) -> list[LearnItem]:
    """Every message of a session, in order."""
    return [learn_item(m, session) for m in session.messages]
