"""The Lab's tool editor: pick tools, edit their description and their parameters' words for the
experiment (the tools' sources untouched), see at once an edit the manual cannot take (named by
tool and field), and download an edit as a patch for the tool's source."""

from __future__ import annotations

import streamlit as st

from core import ToolRegistry
from core.lab import EditProblem, Experiment, export_patch

from ._lab_state import LabWork, field_text, key
from .._text import md_escape

__all__ = ["tool_editor"]


def tool_editor(work: LabWork, registry: ToolRegistry, experiment: Experiment, problems: list[EditProblem]) -> None:
    st.subheader("Tools and their words")
    names = registry.names()
    st.multiselect("Tools to edit", names, default=[t for t in work.tools if t in names], key=key(work, "tools"),
                   placeholder="Pick the tools whose words you want to try")
    for name in experiment.tools:
        tool = registry.get(name)
        mine = [p for p in problems if p.tool == name]
        override = experiment.overrides.get(name)
        edited = " · edited" if override is not None else ""
        with st.expander(f"{md_escape(name)}{edited}", expanded=True, key=f"lab.{work.revision}.card.{name}"):
            st.caption(f"Effects: {md_escape(tool.effects.label)}"
                       + (f" · from {md_escape(tool.source)}" if tool.source else ""))
            st.text_area("Description", value=field_text(work, tool, "description"),
                         key=key(work, f"edit.{name}.description"))
            _problems(mine, "description")
            for param in tool.param_names:
                st.text_input(f"Parameter {md_escape(param)}", value=field_text(work, tool, f"param.{param}"),
                              key=key(work, f"edit.{name}.param.{param}"))
                _problems(mine, f"params.{param}")
            if override is not None and not mine:
                patch = export_patch(tool, override)
                what = "a diff of its docstring" if patch.filename.endswith(".patch") else "its changed definition (JSON)"
                st.download_button(f"Download the edit as a patch ({what})", patch.text, file_name=patch.filename,
                                   mime=patch.media_type, key=f"lab.{work.revision}.patch.{name}",
                                   icon=":material/download:", on_click="ignore")


def _problems(problems: list[EditProblem], field: str) -> None:
    for problem in problems:
        if problem.field == field:
            st.error(md_escape(f"{problem}. This edit is not used."),
                     icon=":material/block:")
