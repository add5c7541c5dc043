"""Decide: a signed link's page (``/decide?link=TOKEN``): what it decides, then Approve or Reject."""

from studio import decide_page

decide_page()
