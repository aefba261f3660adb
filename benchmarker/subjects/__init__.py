"""What is benchmarked: our memory agent (over the run's memory driver) or an outside agent that keeps
its own memory (HTTP or subprocess). The graph asks a subject to get ready, and names it in the summary."""

from benchmarker.subjects.memory_agent import MemoryAgentSubject, ReplayWrites
from benchmarker.subjects.outside import OutsideAgentSubject, agent_pool

Subject = MemoryAgentSubject | OutsideAgentSubject

__all__ = ["MemoryAgentSubject", "OutsideAgentSubject", "ReplayWrites", "Subject", "agent_pool"]
