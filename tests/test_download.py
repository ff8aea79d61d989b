"""The download rules' code against a real HTTP server on loopback serving upstream layouts."""

from __future__ import annotations

import hashlib
import http.server
import shutil
import threading
import zipfile
from functools import partial

import pytest

from hiremeornot.errors import InputError
from hiremeornot.inputs.download import download_names, download_onet
from hiremeornot.inputs.names import FORMAT_FILES, read_name_list
from tests.conftest import NAME_SOURCES, ONET_DIR, SHARED_DATA, name_table, needs_data

pytestmark = needs_data


@pytest.fixture()
def server(tmp_path):
    root = tmp_path / "www"
    archive = root / "db_29_3_text.zip"
    archive.parent.mkdir()
    with zipfile.ZipFile(archive, "w") as zf:
        for name in ("Occupation Data.txt", "Content Model Reference.txt"):
            zf.write(ONET_DIR / name, f"db_29_3_text/{name}")
    for source in NAME_SOURCES.values():  # each list's repository layout, as upstream serves it
        shutil.copytree(SHARED_DATA / source["folder"], root / source["folder"])
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", archive
    httpd.shutdown()


def test_onet_archive_is_unpacked_to_the_release_folder(server, tmp_path):
    url, archive = server
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    out = download_onet(f"{url}/db_29_3_text.zip", "db_29_3_text", tmp_path / "onet/x", digest)
    assert (out / "Occupation Data.txt").read_bytes() == (
        ONET_DIR / "Occupation Data.txt"
    ).read_bytes()


def test_checksum_mismatch_is_refused_and_leaves_nothing(server, tmp_path):
    url, _ = server
    with pytest.raises(InputError, match="SHA-256"):
        download_onet(f"{url}/db_29_3_text.zip", "db_29_3_text", tmp_path / "onet/x", "0" * 64)
    assert not (tmp_path / "onet/x").exists()


def test_wrong_release_name_is_explained(server, tmp_path):
    url, _ = server
    with pytest.raises(InputError, match="no folder db_30_0_text/"):
        download_onet(f"{url}/db_29_3_text.zip", "db_30_0_text", tmp_path / "onet/y")


@pytest.mark.parametrize("name_list", sorted(NAME_SOURCES))
def test_name_lists(server, tmp_path, name_list):
    url, _ = server
    source = NAME_SOURCES[name_list]
    files = list(FORMAT_FILES[source["format"]])
    download_names(f"{url}/{source['folder']}", files, tmp_path / source["folder"])
    downloaded = read_name_list(tmp_path, source, name_list)
    expected = name_table(name_list)
    assert downloaded[["name", "gender", "race"]].equals(expected[["name", "gender", "race"]])
