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


def learn_item(message: Message, session: Session, *, case_id: str = "", turn: int | None = None,
               attempt: int = 1) -> LearnItem:
    """One message as the adapter's `learn` argument; its key names it (case / attempt / session / turn).

    `attempt` is the case's learning attempt (memories.jsonl's): a case learnt again after a reset (a
    resumed run) sends each message under a new key, which an agent that remembers keys past a reset
    must not take for a repeat; retries of one message within an attempt keep its key."""
    key = f"{case_id}/{attempt}/{session.session_id}/{turn}" if turn is not None else ""
    return LearnItem(content=message_text(message, session), role=message.role,
                     session_id=session.session_id, date=session.date, key=key)


def session_items(session: Session) -> list[LearnItem]:
    """Every message of a session, in order."""
    return [learn_item(m, session) for m in session.messages]
