"""How libtilec_mamba2.so is found, and the error when it is not."""

import os

import pytest

from tilec import _loader
from tilec._loader import LibraryNotFoundError


@pytest.fixture
def fresh_loader(monkeypatch):
    """The loader as if nothing had been loaded yet (restored afterwards)."""
    monkeypatch.setattr(_loader, "_library", None)
    return monkeypatch


def test_explicit_path_that_does_not_load(fresh_loader, tmp_path):
    missing = tmp_path / "libtilec_mamba2.so"
    fresh_loader.setenv(_loader.LIBRARY_ENV, str(missing))
    with pytest.raises(LibraryNotFoundError) as caught:
        _loader.library()
    assert f"TILEC_MAMBA2_LIBRARY={missing} cannot be loaded" in str(
        caught.value)


def test_not_found_anywhere_lists_every_place(fresh_loader, tmp_path):
    fresh_loader.delenv(_loader.LIBRARY_ENV, raising=False)
    places = [str(tmp_path / "a" / "libtilec_mamba2.so"),
              str(tmp_path / "b" / "libtilec_mamba2.so")]
    fresh_loader.setattr(_loader, "candidate_paths", lambda: places)
    fresh_loader.setattr(_loader, "LIBRARY_NAME", "libtilec_mamba2_absent.so")
    with pytest.raises(LibraryNotFoundError) as caught:
        _loader.library()
    message = str(caught.value)
    assert "set TILEC_MAMBA2_LIBRARY to its path" in message
    for place in places:
        assert f"{place} (no such file)" in message
    assert "libtilec_mamba2_absent.so through the dynamic loader" in message


def test_the_documented_places_in_order():
    package = os.path.dirname(os.path.abspath(_loader.__file__))
    places = _loader.candidate_paths()
    assert places[0] == os.path.join(package, "lib", "libtilec_mamba2.so")
    assert places[-1] == os.path.join(os.path.dirname(os.path.dirname(
        package)), "build", "lib", "libtilec_mamba2.so")


def test_a_file_that_is_no_library(fresh_loader, tmp_path):
    fake = tmp_path / "libtilec_mamba2.so"
    fake.write_text("not an ELF file " * 16)
    fresh_loader.delenv(_loader.LIBRARY_ENV, raising=False)
    fresh_loader.setattr(_loader, "candidate_paths", lambda: [str(fake)])
    fresh_loader.setattr(_loader, "LIBRARY_NAME", "libtilec_mamba2_absent.so")
    with pytest.raises(LibraryNotFoundError, match="invalid ELF header"):
        _loader.library()
