#!/usr/bin/env python3
"""Print the project's dependencies and dev extras from pyproject.toml, one per line."""

import pathlib
import tomllib

project = tomllib.loads((pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
for requirement in [*project["dependencies"], *project.get("optional-dependencies", {}).get("dev", [])]:
    print(requirement)
