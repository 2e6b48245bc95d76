"""Cut-short, damaged and foreign files raise mpimon.FormatError with the tools' message."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import mpimon
from conftest import tool_error


def cut(source: Path, target: Path, keep: float = 0.5) -> Path:
    data = source.read_bytes()
    target.write_bytes(data[: int(len(data) * keep)])
    return target


def damage(source: Path, target: Path) -> Path:
    data = bytearray(source.read_bytes())
    middle = len(data) // 2
    data[middle] = ord("7") if data[middle] != ord("7") else ord("8")
    target.write_bytes(bytes(data))
    return target


def test_format_error_is_a_value_error() -> None:
    assert issubclass(mpimon.FormatError, ValueError)


@pytest.mark.parametrize("how", ["cut", "damaged", "foreign", "missing"])
def test_job_file(example_job: Path, tmp_path: Path, how: str) -> None:
    source = example_job / "job.txt"
    bad = tmp_path / f"{how}.txt"
    if how == "cut":
        cut(source, bad)
    elif how == "damaged":
        damage(source, bad)
    elif how == "foreign":
        bad.write_text("# mpimon job file\nformat something-else 1\n")
    with pytest.raises(mpimon.FormatError) as e:
        mpimon.read_job(bad)
    assert str(e.value) == tool_error(str(bad))


@pytest.mark.parametrize("how", ["cut", "damaged", "foreign"])
def test_prof_files(example_job: Path, tmp_path: Path, how: str) -> None:
    for r in range(4):
        shutil.copy(example_job / f"prof.{r}.prof", tmp_path / f"bad.{r}.prof")
    one = tmp_path / "bad.1.prof"
    if how == "cut":
        text = one.read_text()
        one.write_text(text[: text.index(",", len(text) // 2)])  # inside a histogram: values missing
    elif how == "damaged":
        lines = one.read_text().splitlines(keepends=True)
        record = next(i for i, l in enumerate(lines) if l.startswith("E\t"))
        lines[record] = lines[record].replace("\t", "\tx", 1)
        one.write_text("".join(lines))
    else:
        one.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(mpimon.FormatError) as e:
        mpimon.read_prof(tmp_path / "bad")
    assert str(e.value) == tool_error(str(tmp_path / "bad"))


def test_series(example_job: Path, tmp_path: Path) -> None:
    """Two files holding one rank's frames: malformed content, the tool's message."""
    folder = tmp_path / "job.txt.series"
    shutil.copytree(example_job / "job.txt.series", folder)
    first = sorted(p for p in folder.iterdir())[0]
    shutil.copy(first, folder / (first.name + ".copy"))
    with pytest.raises(mpimon.FormatError) as e:
        mpimon.read_series(folder)
    assert str(e.value) == tool_error(str(folder))
    assert "expected one start frame for rank" in str(e.value)


def test_series_cut_short_is_read_up_to_the_tear(example_job: Path, tmp_path: Path) -> None:
    """A torn last frame (a process killed while writing) is skipped and said, as the
    tools do: not an error, nothing invented."""
    folder = tmp_path / "job.txt.series"
    shutil.copytree(example_job / "job.txt.series", folder)
    first = sorted(p for p in folder.iterdir())[0]
    data = first.read_bytes()
    first.write_bytes(data[: len(data) - 20])
    series = mpimon.read_series(folder)
    assert series.notes and not series.finished


@pytest.mark.parametrize("how", ["cut", "damaged", "foreign"])
def test_event_logs(events_job: Path, tmp_path: Path, how: str) -> None:
    log = events_job / "events.1.log"
    bad = tmp_path / "bad.1.log"
    if how == "cut":
        cut(log, bad)
        expected = "expected a line ending in a newline (the log is cut short)"
    elif how == "damaged":
        lines = log.read_text().splitlines(keepends=True)
        lines[2] = lines[2].replace("]", "}", 1)
        bad.write_text("".join(lines))
        expected = "bad.1.log:3: expected an event line"
    else:
        bad.write_bytes(b"\x7fELF\x02\x01\x01\x00")
        expected = "expected text, found a NUL byte"
    with pytest.raises(mpimon.FormatError) as e:
        mpimon.read_events(bad)
    assert expected in str(e.value) and str(bad) in str(e.value)
