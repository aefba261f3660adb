"""The README and the docs as a user meets them: every shipped config loads, the offline ones estimate and
run, and every `mycelian-longmemeval ...` command in a code block of README.md or docs/*.md parses with the
CLI's own parser, and runs when it names a shipped config that can run offline (a command shown on several
pages runs once).

The configs are copied unchanged into a repository-shaped folder (configs/, runs/, data/, and the
LongMemEval clone and shared data next to it), so their relative paths mean what they mean in a
checkout; only the selection is cut down (`[run] limit`, a few levels) to keep the file fast. The
LongMemEval clone is a generated sample in LongMemEval's format: enough to load, estimate and run the
offline workflow (configs/longmemeval_offline.toml, docs/workflow.md) on one question.
Everything runs in this process (`benchmarker.cli.main`) and shares one quickstart run.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmarker.cli import _parser, main
from benchmarker.config import load_config
from benchmarker.errors import ConfigError
from benchmarker.suites.sample.data import write_sample

REPO = Path(__file__).parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"   # the documentation site's pages (mkdocs.yml): their commands are run the same way


RECIPES = "recipes"   # configs/recipes/*.toml: docs/compare-recipe.md's configs, shipped like configs/*.toml


def shipped_configs(root: Path) -> list[Path]:
    """The repository's own configs/*.toml and configs/recipes/*.toml: those git tracks (a user's own config
    kept in configs/ is not shipped), or every one when `root` is not a git checkout (a source archive)."""
    folders = (root / "configs", root / "configs" / RECIPES)
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", "configs"], capture_output=True,
                                check=True, timeout=30).stdout.decode("utf-8")
    except (OSError, subprocess.SubprocessError):
        return sorted(p for folder in folders for p in folder.glob("*.toml"))
    tracked = sorted(p for p in (root / name for name in listed.split("\0") if name)
                     if p.parent in folders and p.suffix == ".toml")
    return tracked or sorted(p for folder in folders for p in folder.glob("*.toml"))   # an archive inside a checkout


def config_key(path: Path | str) -> str:
    """A config's name under configs/ ("quickstart.toml", "recipes/locomo_hybrid.toml"): the key of RUNS and NOT_RUN."""
    parts = Path(path).parts
    last = len(parts) - 1 - parts[::-1].index("configs") if "configs" in parts else len(parts) - 2
    return "/".join(parts[last + 1:])


CONFIGS = shipped_configs(REPO)
SHARED = REPO.parent / "shared"              # ../shared: the judge labels calibrate.toml reads
KUZU = REPO / ".venv-servers" / "kuzu" / "bin" / "kuzu-memory"   # `make servers`
LOCOMO_FIXTURE = REPO / "tests" / "suites" / "locomo" / "fixtures" / "locomo_mini.json"

# Configs that run offline on the embedded defaults (or a local server) with data the README tells
# you to bring: each must estimate and run. The value cuts the selection down: (table, line).
RUNS = {
    "quickstart.toml": ("run", "limit = 1"),
    "replay_bm25.toml": ("run", "limit = 1"),       # the replay target; run here on its own, too
    "sweep.toml": ("run", "limit = 1"),
    "levels.toml": ("dataset", 'levels = ["L1", "L13"]'),
    "locomo.toml": ("run", "limit = 2"),            # with the README's data/locomo10.json (a fixture here)
    "kuzu_memory.toml": ("run", "limit = 1"),       # needs `make servers`; skipped without it
    "longmemeval_offline.toml": ("run", "limit = 1"),   # the workflow without a key, on the generated clone
    # docs/compare-recipe.md on the LoCoMo fixture: its two conversations, 15 questions, are the whole file
    "recipes/locomo_hybrid.toml": ("run", "limit = 15"),
    "recipes/locomo_sweep.toml": ("run", "limit = 15"),
}
# Replay targets the docs' commands replay into (cut down like RUNS), never run on their own: a run of
# their own would repeat what `replay` checks (replay_bm25.toml keeps its own run in RUNS).
REPLAY_TARGETS = {
    "longmemeval_offline_replay_bm25.toml": ("run", "limit = 1"),
    "recipes/locomo_keyword.toml": ("run", "limit = 15"),   # docs/compare-recipe.md replays into it
}
# Configs that are only loaded (and estimated where that needs no network), and why they are not run.
NOT_RUN = {
    "openai.toml": "needs OPENAI_API_KEY and the real LongMemEval files",
    "openai_replay_bm25.toml": "needs OPENAI_API_KEY and a finished openai.toml run",
    "anthropic.toml": "needs ANTHROPIC_API_KEY and the real LongMemEval files",
    "lean.toml": "needs ANTHROPIC_API_KEY and the real LongMemEval files (tests/config/test_lean_config.py loads it)",
    "bedrock.toml": "needs AWS credentials and the real LongMemEval files",
    "mycelian_stack.toml": "needs a Mycelian stack in docker compose on localhost:11545/11546",
    "retrieval.toml": "needs the real LongMemEval files (a run over the generated stand-in proves nothing more)",
    "sweep_retrieval.toml": "needs the real LongMemEval files (sweeps run offline in sweep.toml)",
    "agent_http.toml": "needs your agent serving HTTP on 127.0.0.1:8080",
    "mcp_server_memory.toml": "needs npx and npm's registry (tests/memory/presets runs the server)",
    "online.toml": "needs LANGSMITH_API_KEY and OPENAI_API_KEY (tests/verbs/judge_online fakes both)",
    "calibrate.toml": "a calibrate config, not a run: its README command runs below when ../shared is present",
    "longmemeval_offline_replay_bm25.toml": "a replay target: docs/workflow.md's replay into it runs below",
    "recipes/locomo_keyword.toml": "a replay target: docs/compare-recipe.md's replay into it runs below",
    "beam.toml": "needs the BEAM clone in data/BEAM (not in a fresh clone; loaded and estimated when present)",
}
# Configs whose data the user brings and this checkout may not have (relative to the repository root): they
# are loaded and estimated only when it is there.
NEEDS_DATA = {"beam.toml": "data/BEAM"}
NO_ESTIMATE = {"online.toml": "judge-online has its own --estimate, which reads LangSmith",
               "calibrate.toml": "calibrate has its own --estimate"}
# The placeholders of the README's command lines, as a user fills them in.
PLACEHOLDERS = {"CONFIG": "configs/quickstart.toml", "run.toml": "configs/quickstart.toml",
                "RUN_DIR": "runs/quickstart-<hex>", "RUN_A": "runs/quickstart-<hex>",
                "RUN_B": "runs/replay_bm25-<hex>", "FILE": "labels.jsonl", "DIR": "out",
                "PATH": "sample.json", "NAME": "static", "KEY": "secret"}
VERB_PLACEHOLDERS = {"replay": {"CONFIG": "configs/replay_bm25.toml"},   # a replay target of the quickstart's run
                     # the fixture against itself: no correction, but the line runs
                     "errata": {"PUBLISHED.json": "data/locomo10.json", "CORRECTED.json": "data/locomo10.json",
                                "FILE": "locomo.errata.jsonl", "URL": "https://example.org/corrected", "KIND": "locomo"}}


def doc_files() -> list[Path]:
    """The README, then every page of the documentation site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def readme_commands() -> list[str]:
    """Every `mycelian-longmemeval ...` line in a code block of the README or a docs page, in that order,
    each once (a command several pages show is run once)."""
    return list(dict.fromkeys(c for path in doc_files() for c in file_commands(path)))


def file_commands(path: Path) -> list[str]:
    """Every `mycelian-longmemeval ...` line in an indented or fenced code block, continuations joined."""
    commands: list[str] = []
    fenced = False
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        code = fenced or line.startswith("    ")
        text = line.strip()
        if code and text.startswith("mycelian-longmemeval "):
            while text.endswith("\\"):
                i += 1
                text = text[:-1] + " " + lines[i].strip()
            commands.append(text)
        i += 1
    return commands


def argv_of(command: str) -> list[str]:
    """The command's arguments with comments, optional-brackets and `...` removed, placeholders filled."""
    text = re.sub(r"\s+#.*$", "", command).replace("[", " ").replace("]", " ").replace("...", " ")
    tokens = shlex.split(text)[1:]
    fill = {**PLACEHOLDERS, **VERB_PLACEHOLDERS.get(_verb(tokens), {})}
    return [fill.get(token, token) for token in tokens]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A checkout-shaped folder: configs/ (cut down), data/locomo10.json, ../LongMemEval, ../shared."""
    root = tmp_path_factory.mktemp("readme")
    checkout = root / "repo"
    (checkout / "configs").mkdir(parents=True)
    (checkout / "configs" / RECIPES).mkdir()
    for path in CONFIGS:
        text, key = path.read_text(encoding="utf-8"), config_key(path)
        if key in RUNS or key in REPLAY_TARGETS:
            table, line = {**RUNS, **REPLAY_TARGETS}[key]
            text = tiny(text, table, line)
        (checkout / "configs" / key).write_text(text, encoding="utf-8")
    write_sample(root / "LongMemEval" / "data" / "longmemeval_s_cleaned.json", questions_per_type=1)
    (checkout / "data").mkdir()
    shutil.copyfile(LOCOMO_FIXTURE, checkout / "data" / "locomo10.json")
    if KUZU.is_file():
        (checkout / ".venv-servers").symlink_to(REPO / ".venv-servers")
    for data in NEEDS_DATA.values():   # the user's own copy, when this checkout has one
        if (REPO / data).exists():
            (checkout / data).symlink_to(REPO / data)
    if SHARED.is_dir():
        (root / "shared").symlink_to(SHARED)
    return checkout


def tiny(text: str, table: str, line: str) -> str:
    """The config with `line` in `[table]` and progress off (what a log file would get anyway)."""
    return _add(_add(text, table, line), "run", "progress = false")


def _add(text: str, table: str, line: str) -> str:
    header = re.search(rf"(?m)^\[{table}\][^\n]*\n", text)
    return text[:header.end()] + f"{line}\n" + text[header.end():] if header else f"{text}\n[{table}]\n{line}\n"


def test_every_shipped_config_is_run_or_says_why_not() -> None:
    assert {config_key(p) for p in CONFIGS} == set(RUNS) | set(NOT_RUN)
    assert not set(RUNS) & set(NOT_RUN)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_config_of_your_own_in_configs_is_not_a_shipped_one(tmp_path: Path) -> None:
    (tmp_path / "configs" / "kuberay").mkdir(parents=True)
    (tmp_path / "configs" / "recipes").mkdir()
    for name in ("ours.toml", "mine.toml", "kuberay/job.toml", "recipes/recipe.toml", "recipes/my_recipe.toml"):
        (tmp_path / "configs" / name).write_text("", encoding="utf-8")
    every = [config_key(p) for p in shipped_configs(tmp_path)]   # not a checkout: every one, recipes included
    assert every == ["mine.toml", "ours.toml", "recipes/my_recipe.toml", "recipes/recipe.toml"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "configs/ours.toml", "configs/kuberay/job.toml",
                    "configs/recipes/recipe.toml"], check=True)
    # the user's untracked mine.toml and my_recipe.toml are theirs
    assert [config_key(p) for p in shipped_configs(tmp_path)] == ["ours.toml", "recipes/recipe.toml"]


@pytest.mark.parametrize("name", [config_key(p) for p in CONFIGS])
def test_every_shipped_config_loads(repo: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "LANGSMITH_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    if name == "calibrate.toml" and not SHARED.is_dir():
        pytest.skip("calibrate.toml reads ../shared/data (not in a fresh clone)")
    if name in NEEDS_DATA and not (repo / NEEDS_DATA[name]).exists():
        pytest.skip(f"{name} reads {NEEDS_DATA[name]} (not in a fresh clone)")
    config = load_config(repo / "configs" / name)
    assert config.run_id.startswith(Path(name).stem)


def test_a_config_without_its_longmemeval_clone_names_the_key(tmp_path: Path) -> None:
    (tmp_path / "repo" / "configs").mkdir(parents=True)
    config = tmp_path / "repo" / "configs" / "openai.toml"
    shutil.copyfile(REPO / "configs" / "openai.toml", config)
    with pytest.raises(ConfigError, match=r"dataset_repo_path .*point it at your LongMemEval clone"):
        load_config(config)


def test_every_readme_command_parses() -> None:
    commands = readme_commands()
    verbs = {_verb(argv_of(c)) for c in commands}
    assert {"run", "estimate", "report", "score", "replay", "compare", "calibrate", "judge-online", "sample",
            "serve-memory", "oracle", "baselines", "view"} <= verbs
    parser = _parser()
    for command in commands:
        try:
            parser.parse_args(argv_of(command))
        except SystemExit as exc:   # argparse exits 2 on a bad line; --version prints and exits 0
            assert exc.code == 0, f"README / docs command does not parse: {command}"


def test_readme_names_only_shipped_configs() -> None:
    shipped = {config_key(p) for p in CONFIGS}
    named = {config_key(t) for c in readme_commands() for t in argv_of(c) if t.endswith(".toml")}
    assert named <= shipped, named - shipped


@pytest.mark.slow
def test_offline_configs_estimate_and_run_and_readme_commands_run(repo: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(repo)
    # estimate: every config that can be estimated without a network (real providers included: no call)
    for path in sorted((repo / "configs").rglob("*.toml")):
        if config_key(path) in NO_ESTIMATE or (path.name == "kuzu_memory.toml" and not KUZU.is_file()):
            continue
        if path.name in NEEDS_DATA and not (repo / NEEDS_DATA[path.name]).exists():
            continue
        assert main(["estimate", f"configs/{config_key(path)}"]) == 0, path.name
    # run: every offline config, the quickstart first (the README's replay, report and compare use it)
    runnable = [n for n in RUNS if n != "kuzu_memory.toml" or KUZU.is_file()]
    done: set[tuple[str, ...]] = set()   # a command the README repeats (run configs/quickstart.toml) runs once
    for name in runnable:
        assert main(["run", f"configs/{name}"]) == 0, name
        done.add(("run", f"configs/{name}"))
        run_dir = _run_dir(repo, Path(name).stem + "-*")
        assert run_dir is not None, name
        results = [line for f in run_dir.rglob("results.jsonl") for line in f.read_text(encoding="utf-8").splitlines()]
        assert results and ((run_dir / "summary.json").is_file() or (run_dir / "sweep.json").is_file()), name
    capsys.readouterr()
    # the README's and the docs' own commands: those naming a shipped offline config, or the runs made above
    ran = [_verb(list(argv)) for argv in done]
    for command in readme_commands():
        argv = _runnable(argv_of(command), repo)
        # once each; `-v` changes only the logging (`-v run configs/quickstart.toml` is the quickstart's run again)
        if argv is None or tuple(t for t in argv if t != "-v") in done:
            continue
        assert main(argv) == 0, command
        done.add(tuple(t for t in argv if t != "-v"))
        ran.append(_verb(argv))
    assert {"run", "estimate", "report", "score", "replay", "compare", "sample", "oracle", "baselines"} <= set(ran), ran
    # README's, docs/workflow.md's, docs/compare-recipe.md's
    for pattern in ("replay_bm25-replay-*", "longmemeval_offline_replay_bm25-replay-*", "locomo_keyword-replay-*"):
        replay = _run_dir(repo, pattern)
        assert replay is not None and json.loads((replay / "manifest.json").read_text())["replay"], pattern


def _verb(argv: list[str]) -> str:
    """The verb, past the global flags (-v); `--version` alone is its own."""
    return next((t for t in argv if not t.startswith("-")), argv[0])


def _run_dir(repo: Path, pattern: str) -> Path | None:
    found = sorted((repo / "runs").glob(pattern))
    return found[0] if found else None


def _runnable(argv: list[str], repo: Path) -> list[str] | None:
    """`argv` with run directories filled in, or None when it cannot run offline here (and why not is
    in NOT_RUN: a config that needs keys, a server or data this machine does not have)."""
    verb, out = _verb(argv), []
    # serve until stopped (tests/memory and tests/view start them for real); prints the version. A bundle of
    # named runs (docs/compare-recipe.md's `view RUN_A RUN_B --bundle share/`) runs; one of every run does not
    if verb in ("serve-memory", "--version") or (verb == "view" and not ("--bundle" in argv and "<hex>" in str(argv))):
        return None
    for token in argv:
        if "<hex>" in token:
            found = _run_dir(repo, Path(token.replace("<hex>", "*")).name)
            if found is None:
                return None   # a run of a config that does not run here
            token = str(found)
        if token.endswith(".toml") and config_key(token) not in RUNS | REPLAY_TARGETS and verb != "calibrate":
            return None
        out.append(token)
    if verb == "calibrate":   # the generic line names no labels file; calibrate.toml's needs ../shared
        return out if "configs/calibrate.toml" in out and SHARED.is_dir() else None
    return None if verb == "judge-online" else out   # judge-online's configs need LangSmith (see NOT_RUN)
