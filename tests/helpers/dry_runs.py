"""Many dry runs of the workflow in one folder, with Snakemake and the package imported once:
each dry run is a child forked from a process that has imported them, so it pays only the
Snakefile and the DAG (about 1 s of the 4 that a fresh ``snakemake -n`` takes).

``dry_runs`` runs this module as a script (``python -m tests.helpers.dry_runs FOLDER``) in a
fresh interpreter, whose only threads are its own: it reads ``FOLDER/runs.json`` (the run's
folder, how many at once, and each dry run's arguments) and writes ``FOLDER/<i>.out``,
``FOLDER/<i>.err`` and ``FOLDER/codes.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def dry_runs(
    workdir: Path, runs: list[list[str]], folder: Path, parallel: int = 2
) -> list[subprocess.CompletedProcess]:
    """Each of ``runs`` (Snakemake's arguments, ``-n`` added) in ``workdir``, as run."""
    folder.mkdir(parents=True, exist_ok=True)
    plan = {"workdir": str(workdir), "parallel": parallel, "runs": [[*r, "-n"] for r in runs]}
    (folder / "runs.json").write_text(json.dumps(plan))
    command = [sys.executable, "-m", "tests.helpers.dry_runs", str(folder)]
    subprocess.run(command, cwd=REPO, check=True, timeout=1800)
    codes = json.loads((folder / "codes.json").read_text())
    return [
        subprocess.CompletedProcess(
            arguments,
            codes[index],
            (folder / f"{index}.out").read_text(),
            (folder / f"{index}.err").read_text(),
        )
        for index, arguments in enumerate(plan["runs"])
    ]


def run_in_child(workdir: str, arguments: list[str], out: Path, err: Path) -> None:
    """Snakemake's command line on ``arguments`` in this (forked) process, which then exits."""
    import snakemake.cli

    os.chdir(workdir)
    for stream, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), stream)
    sys.argv = ["snakemake", "--snakefile", str(REPO / "Snakefile"), *arguments]
    code = 1
    try:
        snakemake.cli.main()
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def main(folder: Path) -> None:
    import snakemake.cli  # noqa: F401 (imported once, for every child)

    # what the Snakefile imports
    import hiremeornot.cli.rule_lines  # noqa: F401
    import hiremeornot.provenance.manifest  # noqa: F401
    from hiremeornot import arms, checks, placement, plan, tables_io  # noqa: F401

    runs = json.loads((folder / "runs.json").read_text())
    pending = list(enumerate(runs["runs"]))
    running: dict[int, int] = {}
    codes: dict[int, int] = {}
    while pending or running:
        while pending and len(running) < runs["parallel"]:
            index, arguments = pending.pop(0)
            child = os.fork()
            if child == 0:
                out, err = folder / f"{index}.out", folder / f"{index}.err"
                run_in_child(runs["workdir"], arguments, out, err)
            running[child] = index
        child, status = os.wait()
        codes[running.pop(child)] = os.waitstatus_to_exitcode(status)
    (folder / "codes.json").write_text(json.dumps([codes[i] for i in range(len(codes))]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
