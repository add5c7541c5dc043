"""The Plan page: editor, graph, inspector, panels for runs, pauses, reruns and reviews."""
