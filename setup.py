"""Build hook: compile the gettext catalogues into the package, so a wheel speaks Georgian.

Everything else about the package is in pyproject.toml. The .po sources stay in the
top-level locales/ (TRANSLATING.md); a build writes tgbot/locales/<lang>/LC_MESSAGES/
messages.mo beside the code with Babel, the same compiler `pybabel compile` runs.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent / "locales"


class BuildWithCatalogs(build_py):
    """build_py, then compile every locales/*/LC_MESSAGES/*.po into the built package."""

    def run(self) -> None:
        """Build the Python files, then the catalogues."""
        super().run()
        if self.editable_mode:  # an editable install reads the .po sources in place
            return
        for po in sorted(SOURCE.glob("*/LC_MESSAGES/*.po")):
            relative = po.relative_to(SOURCE).with_suffix(".mo")
            target = Path(self.build_lib) / "tgbot" / "locales" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as handle:
                catalog = read_po(handle, abort_invalid=True)
            errors = [(m.id, e) for m, es in catalog.check() for e in es]
            if errors:
                raise SystemExit(f"{po}: {errors[0][1]} (in {errors[0][0]!r})")
            with target.open("wb") as out:
                write_mo(out, catalog, use_fuzzy=False)


setup(cmdclass={"build_py": BuildWithCatalogs})
