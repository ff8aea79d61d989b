"""Download the public inputs (O*NET release, name lists) for users with internet."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from hiremeornot.atomic import atomic_output
from hiremeornot.errors import InputError


def fetch(url: str, dest: str | Path, sha256: str | None = None, timeout_s: float = 120) -> Path:
    """Download ``url`` to ``dest`` atomically; check its SHA-256 when one is given."""
    with atomic_output(dest) as partial:
        with urllib.request.urlopen(url, timeout=timeout_s) as response, partial.open("wb") as out:
            shutil.copyfileobj(response, out)
        if sha256:
            digest = hashlib.sha256(partial.read_bytes()).hexdigest()
            if digest != sha256.lower():
                raise InputError(f"{url}: SHA-256 {digest} differs from the configured {sha256}")
    return Path(dest)


def download_onet(url: str, release: str, out_dir: str | Path, sha256: str | None = None) -> Path:
    """Fetch the O*NET text archive and unpack its ``release`` folder to ``out_dir``."""
    out_dir = Path(out_dir)
    with tempfile.TemporaryDirectory(
        dir=out_dir.parent if out_dir.parent.exists() else None
    ) as tmp:
        archive = fetch(url, Path(tmp) / "onet.zip", sha256)
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
        unpacked = Path(tmp) / release
        if not (unpacked / "Occupation Data.txt").is_file():
            raise InputError(
                f"{url}: the archive has no folder {release}/ with Occupation Data.txt"
            )
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(unpacked), out_dir)
    return out_dir


def download_names(base_url: str, files: list[str], out_dir: str | Path) -> Path:
    """Fetch the ``files`` of a name list (paths in its repository) into ``out_dir``, in the
    repository's layout."""
    for path in files:
        fetch(f"{base_url.rstrip('/')}/{path}", Path(out_dir) / path)
    return Path(out_dir)
