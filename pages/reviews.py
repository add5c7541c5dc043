"""Reviews: plans agents sent for a person to approve or reject."""

from studio import reviews_page

reviews_page()
