"""Library: saved plans, their versions and runs."""

from studio import library_page

library_page()
