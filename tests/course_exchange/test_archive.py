"""Archives from students are checked before they are stored and again before they are unpacked."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from course_exchange import archive


def zipped(entries) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for info, data in entries:
            out.writestr(info, data)
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["../x", "/etc/x", "a/../../x", "a\\..\\x", "./x", "a//b", "x\n"])
def test_names_outside_the_folder_are_refused(name):
    with pytest.raises(archive.ArchiveError):
        archive.check(zipped([(name, b"x")]), max_bytes=100)


def test_links_and_duplicates_are_refused():
    link = zipfile.ZipInfo("link")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(archive.ArchiveError, match="not a regular file"):
        archive.check(zipped([(link, b"/etc/passwd")]), max_bytes=100)
    with pytest.raises(archive.ArchiveError, match="twice"):
        archive.check(zipped([("a", b"1"), ("a", b"2")]), max_bytes=100)


def test_the_size_is_what_the_files_add_up_to():
    with pytest.raises(archive.ArchiveError, match="more than 10 bytes"):
        archive.check(zipped([("a", b"123456"), ("b", b"123456")]), max_bytes=10)
    assert [m.size for m in archive.check(zipped([("a", b"123456")]), max_bytes=10)] == [6]


def test_unpack_does_not_follow_a_link_in_the_target(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    (target / "sub").symlink_to(outside)
    with pytest.raises(archive.ArchiveError, match="is a link"):
        archive.unpack(zipped([("sub/x", b"x")]), target, max_bytes=100)
    (target / "f").symlink_to(outside / "victim")
    archive.unpack(zipped([("f", b"data")]), target, max_bytes=100)
    assert not (outside / "victim").exists() and (target / "f").read_bytes() == b"data"


def test_pack_and_unpack_round_trip(tmp_path):
    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / "a.ipynb").write_text("{}")
    (source / "sub" / "b.txt").write_text("b")
    (source / ".ipynb_checkpoints").mkdir()
    (source / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text("old")
    (source / "link").symlink_to(tmp_path)
    data = archive.pack(source, ignore=[".ipynb_checkpoints"])
    assert sorted(archive.digests(data)) == ["a.ipynb", "sub/b.txt"]
    archive.unpack(data, tmp_path / "copy", max_bytes=100)
    assert (tmp_path / "copy" / "sub" / "b.txt").read_text() == "b"
