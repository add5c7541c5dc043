"""Lab: edit tools' descriptions, re-plan a goal set with the old and new words, see what changes."""

from studio import lab_page

lab_page()
