"""The demo domain's words for the embedded planner, as ``demo-domain.md`` ("From goal to
plan") states them: what the four tools' schemas cannot say.

Given through the ``tool_words`` hook (``tools._plugin``), the same way any plugin gives its
groups' words; core holds none of them, so a registry without these tools plans without
these words.
"""

from __future__ import annotations

from core import ToolWords

from ._data import CITIES

__all__ = ["WASTE_WORDS"]

WASTE_WORDS = ToolWords(
    # The cities of the demo data (the location parameter's description names only some).
    places=CITIES,
    place_spellings={"hanover": "Hannover", "münchen": "Munich", "muenchen": "Munich",
                     "köln": "Cologne", "koeln": "Cologne"},
    # Other ways to say a value; enum values and the words of a boolean's name are found
    # from the schemas.
    value_phrases={
        "has_contaminants": {
            True: ("contaminated", "contamination", "with contaminants", "with contamination",
                   "containing contaminants", "that have contaminants", "that had contaminants"),
            False: ("uncontaminated", "clean", "without contaminants", "contaminant-free",
                    "free of contaminants", "with no contaminants"),
        },
        "near_capacity": {
            True: ("near capacity", "near full capacity", "at capacity", "close to capacity",
                   "nearly full", "almost full", "near their capacity", "over capacity",
                   "near-capacity"),
        },
        "status": {
            "in_transit": ("in transit", "in-transit", "on the way", "en route", "underway"),
        },
        "result": {
            "failed": ("failed", "failing", "fail", "failures"),
            "passed": ("passed", "passing", "pass"),
        },
    },
    # Facility kinds: "<type> <kind noun>" ("recycling plants") or one of these words alone
    # ("landfills", "incinerators") names facilities of that type.
    kind_words={
        "incineration": ("incinerators", "incinerator"),
        "composting": ("composters", "composter", "compost sites", "compost site"),
        "recycling": ("recyclers", "recycler"),
        "landfill": ("dumps", "dump sites"),
    },
    kind_nouns=("plants", "plant", "sites", "site", "centers", "center", "centres", "centre",
                "facilities", "facility", "stations", "station", "yards", "yard"),
    # "carried by EcoHaul", "with carrier GreenLine".
    name_cues={"carrier": ("carried by", "with carrier", "by carrier", "carrier", "transported by",
                           "hauled by", "shipped by", "shipped with", "shipped via", "delivered by")},
    # Feedback such as "any city" or "remove the city filter".
    param_nouns={"city": ("location", "destination"), "cities": ("location", "destination")},
)
