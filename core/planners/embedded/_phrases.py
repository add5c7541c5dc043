"""The embedded planner's own English: the words that join, chain, count and change parts
of a goal, whatever the tools are.

Everything the embedded planner can read from the registry (entity nouns from tool names,
enum values, boolean parameters, link parameters, date parameters, example values in
parameter descriptions) it reads from there, and what a tool group knows beyond its schemas
(place names, synonyms of values, cue words for a parameter) the group hands the registry
as ``ToolWords`` (``core.tooling._words``). What is left lives here: the cue words for
parameters any domain has ("going to X", "first N"), and the words that join or chain parts
of a goal and make up re-plan feedback.
"""

from __future__ import annotations

# Verbs that put a "has_X" boolean on ("shipments that contain contaminants") or off.
HAVING_WORDS: tuple[str, ...] = ("with", "has", "have", "having", "had", "contain", "contains",
                                 "containing", "contained")
NOT_HAVING_WORDS: tuple[str, ...] = ("without", "with no", "has no", "have no", "had no", "having no",
                                     "contain no", "contains no", "containing no", "free of")

# Values that are plain adjectives only count next to their parameter's noun:
# "high-risk", "high risk", "risk level high" (the noun of ``risk_level`` is "risk").
QUALIFIED_VALUES: frozenset[str] = frozenset({"low", "medium", "high"})

# Cue phrases that put the following name into a parameter.
DESTINATION_CUES: tuple[str, ...] = ("going to", "destined for", "headed to", "heading to",
                                     "bound for", "shipped to", "sent to", "destination", "went to",
                                     "goes to", "go to", "moving to", "travelling to", "traveling to",
                                     "transported to", "hauled to", "carried to")
# Counts written as words: "top three landfills", "first five shipments".
NUMBER_WORDS: dict[str, int] = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                                "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100}
LIMIT_CUES: tuple[str, ...] = ("limit to", "limited to", "limit", "first", "top", "at most",
                               "max", "maximum", "only the first", "latest", "last", "no more than",
                               "not more than", "up to", "cap at", "capped at", "cap it at")

# Words that join independent parts of a goal, and those that make a part use the one before.
SEPARATORS: tuple[str, ...] = (",", ";", "and then", "and", "then", "plus", "as well as", "also",
                               "along with", "together with", "after that", "afterwards", "next")
THEN_WORDS: tuple[str, ...] = ("then", "after that", "afterwards", "next")
LINK_CUES: tuple[str, ...] = ("their", "its", "those", "these", "them", "they", "each of them",
                              "for each", "for them", "details", "detail", "check for",
                              "check them for", "look for", "corresponding", "related",
                              "associated", "matching")

# Words before an entity's noun that mean a step listed earlier: "<entity> of those <earlier entity>".
BACK_REFERENCES: tuple[str, ...] = ("those", "these", "the same")
# A part of a goal that opens with one of these ("At <kind> in <city>, list <entity>")
# qualifies another part instead of naming a list of its own.
QUALIFYING_PREPOSITIONS: tuple[str, ...] = ("at", "from", "for", "in", "of", "across", "within",
                                            "among", "inside", "regarding")

# Follow-up goals ("the same for <city>", "and for <other city>?") and re-plan feedback.
FOLLOW_UP_CUES: tuple[str, ...] = ("same", "again", "instead", "too", "as well", "similarly",
                                   "likewise")
FOLLOW_UP_OPENERS: tuple[str, ...] = ("and", "but", "what about", "how about", "now", "only",
                                      "also", "same", "just", "use", "make it", "switch to")
REMOVE_VERBS: tuple[str, ...] = ("drop", "remove", "delete", "skip", "exclude", "omit",
                                 "get rid of", "take out", "leave out", "without", "no")
ADD_VERBS: tuple[str, ...] = ("add", "also", "include", "plus", "append", "as well")
# Feedback: the words before a value it replaces ("<city> instead of <old city>", "<city>, not
# <old city>"); after "not" only when the feedback names the new value too, else "not" removes it.
OLD_VALUE_CUES: tuple[str, ...] = ("instead of", "rather than", "in place of", "not")
# Feedback: an arrow between an old and a new value ("<old city> -> <city>").
OLD_TO_NEW_ARROWS: tuple[str, ...] = ("->", "=>", "\u2192")
# Feedback asking for every row: the limit goes.
NO_LIMIT_PHRASES: tuple[str, ...] = ("unlimited", "all of them", "show all", "show them all", "list all",
                                     "all results", "all rows", "all records", "all entries",
                                     "everything", "every row", "every result", "the full list",
                                     "no max", "no maximum", "no cap", "without a cap")
# Feedback: "any status", "all cities": the filter on that parameter goes.
ANY_WORDS: tuple[str, ...] = ("any", "all", "every", "whatever")
# Feedback naming a step by its place: "drop the last step".
STEP_ORDINALS: dict[str, int] = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4,
                                 "sixth": 5, "seventh": 6, "eighth": 7, "last": -1, "final": -1}
# Words feedback is padded with ("could you please use <city> instead?"); any other word the
# rules did not read is reported as not understood rather than silently dropped.
FEEDBACK_FILLERS: frozenset[str] = frozenset("""
    a an the this that these those it its it's them they their there here one ones some all
    every each both either i me my we us our you your please pls thanks thank ok okay yes sure
    actually maybe just only also too again instead rather than not no but and or so then now still
    use using make set switch change replace swap try keep put let let's lets want need would
    like could can should will do does be is are was were get show list give find fetch display
    see view return bring look what about how for in at on of to with from by into within over
    as well same thing things stuff results rows records entries items data plan step steps
    filter filters add include append plus place details detail anything whatever which where
    who has have had tell know analyse analyze check many much there's hi hey hmm oh great good
    fine perfect found detected recorded logged seen made done happened listed shown
    i'd i'm i'll we'd we'll you'd that's
    """.split())

# Function words a goal may hold besides the fillers above, which carry no request of their
# own ("What's the ...", "any", "currently"); a goal's other words that no rule reads are
# reported as not used (``_embedded_unread``). Words that ask for something the plan cannot
# do ("summary", "highest", "sorted") are deliberately not here.
FUNCTION_WORDS: frozenset[str] = frozenset("""
    any what's whats where's who's how's here's am been being did doing may might must shall
    he she him her his hers ours yours mine myself yourself ourselves themselves itself
    if because while via per during through throughout across among upon onto out
    very really currently presently right kindly including included
    """.split())

# Names for parameters in feedback such as "remove the date filter" or "no limit".
PARAM_NOUNS: dict[str, tuple[str, ...]] = {
    "date": ("date_from", "date_to"),
    "dates": ("date_from", "date_to"),
    "date range": ("date_from", "date_to"),
    "time": ("date_from", "date_to"),
}

# Words that negate what follows them ("shipments that are not <value>", "except <value>");
# the contractions stand for their "not". Read by ``_embedded_negation``.
NEGATIONS: frozenset[str] = frozenset("""
    not never no neither nor without except excluding excepting isn't aren't wasn't weren't don't doesn't
    didn't hasn't haven't hadn't won't
    """.split())
# Two-word negations: "other than", "rather than".
NEGATION_PAIRS: frozenset[tuple[str, str]] = frozenset({("other", "than"), ("rather", "than")})
# Words that may stand between a negation and the value it negates ("not yet marked as
# <value>", "other than the <value> ones"); any other word ends the negation's reach.
NEGATION_GLUE: frozenset[str] = frozenset("""
    that which who whose are is was were be been being have has had do does did yet ever currently
    still the a an any status marked as in at from to of with by those ones one for
    """.split())
# A negation reaches on over a list joined by these: "not <value> or <value>".
NEGATION_LISTS: frozenset[str] = frozenset({"or", "nor", ","})
# "not only X but also Y" adds to X, it does not negate it.
NOT_NEGATING: frozenset[str] = frozenset({"only", "just", "merely", "simply"})
# Negations that deny the rows after them exist ("<entity> with no <value> <other entity>").
DENYING: frozenset[str] = frozenset({"no", "without", "never"})

# Verbs that ask to change the world, by the kind of change: a goal that opens a clause with
# one asks for a tool that writes (``_embedded_writes``). The words of one kind name the same
# change, so a tool named with any of them can make it. Those that also edit a plan ("remove
# the <entity> step") are read as plan edits in a follow-up and before a plan's noun.
WRITE_VERBS: dict[str, tuple[str, ...]] = {
    "create": ("create", "insert", "register", "add"),
    "update": ("update", "change", "modify", "edit", "rename", "fix", "reassign", "assign",
               "mark", "flag", "approve", "reject", "reroute", "redirect", "reset"),
    "delete": ("delete", "remove", "drop", "erase", "purge", "destroy", "wipe", "archive"),
    "cancel": ("cancel", "abort", "revoke", "void"),
    "send": ("send", "email", "e-mail", "mail", "forward", "notify", "message", "dispatch",
             "submit", "post", "upload", "publish", "share"),
    "book": ("book", "reserve", "schedule", "reschedule", "buy", "pay"),
}
# Verbs that also edit a plan ("add their <entity>") ask for a change of the world only
# before one of these words ("add a new <entity>").
WRITE_ONLY_BEFORE: dict[str, frozenset[str]] = {"add": frozenset({"a", "an", "new", "another", "one"})}
# Words before a clause's verb that keep it the clause's verb ("could you please delete ...").
REQUEST_OPENERS: frozenset[str] = frozenset("""
    please pls kindly can could would will you i i'd we want wanna like need needs to let's lets go
    ahead and help me try also then now just so should must how do is it possible
    """.split())
# A verb followed by one of these is a noun ("update on <entity>", "change of status").
NOUN_AFTER: frozenset[str] = frozenset({"of", "on", "about", "in", "for", "history", "log", "logs", "list"})
