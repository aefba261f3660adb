"""mycelian-longmemeval: a benchmark harness for agent memory systems."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mycelian-longmemeval")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
