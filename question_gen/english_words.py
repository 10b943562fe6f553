"""English closed word classes and small word tables the probe grammar (question_gen/english.py) reads.

Word lists only, kept apart from the grammar code so each can be read (and extended) on its own.
"""

from __future__ import annotations

BE_FORMS = frozenset({"am", "is", "are", "was", "were"})
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"})
HAVE_FORMS = frozenset({"have", "has", "had"})
DO_FORMS = frozenset({"do", "does", "did"})
SINGULAR_FORMS = frozenset({"is", "was", "has", "does"})

# n't contractions whose base is not simply the word without "n't"
IRREGULAR_NEG = {"can't": "can", "won't": "will", "shan't": "shall", "ain't": "are"}
# Contractions written without an apostrophe in noisy data ("dont have dads"); "wont"/"cant" are words
# too, but after a plural group they are only ever the contractions.
APOSTROPHELESS = {
    "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "wont": "won't",
    "arent": "aren't", "isnt": "isn't", "wasnt": "wasn't", "werent": "weren't", "couldnt": "couldn't",
    "shouldnt": "shouldn't", "wouldnt": "wouldn't", "havent": "haven't", "hasnt": "hasn't",
    "hadnt": "hadn't", "mustnt": "mustn't",
}
# Adverbs that may precede the verb phrase ("all have aids", "often steal", "never pay taxes").
LEADING_ADVERBS = frozenset({
    "all", "both", "always", "often", "usually", "frequently", "sometimes", "never", "rarely", "seldom",
    "hardly", "barely", "scarcely", "generally", "mostly", "really", "just", "also", "still", "only",
    "constantly", "typically", "normally", "naturally", "simply", "actually", "truly", "even",
})
# Words that make a clause negative for tag polarity ("have no jobs, do they?").
NEGATIVE_WORDS = frozenset({"not", "never", "no", "nothing", "nobody", "none", "neither", "nowhere",
                            "hardly", "barely", "scarcely", "seldom", "rarely"})
# Degree adverbs that cannot modify a comparative ("are very smart" -> "are smarter than").
DEGREE_ADVERBS = frozenset({"very", "really", "so", "too", "quite", "extremely", "pretty", "fairly",
                            "rather", "incredibly", "super", "highly", "totally"})

IRREGULAR_COMPARATIVES = {
    "good": "better", "well": "better", "bad": "worse", "badly": "worse", "ill": "worse",
    "far": "further", "many": "more", "much": "more", "little": "less", "old": "older",
}
# upstream's table differs in one entry: old -> elder ("are elder than" is not English).
UPSTREAM_IRREGULAR_COMPARATIVES = {**IRREGULAR_COMPARATIVES, "old": "elder"}
del UPSTREAM_IRREGULAR_COMPARATIVES["badly"], UPSTREAM_IRREGULAR_COMPARATIVES["ill"]

# Adjective suffixes for words the small POS model mis-tags (misspellings like "valueable",
# or "kind" read as a noun): a predicate after "are" with one of these endings is an adjective.
ADJ_SUFFIXES = ("able", "ible", "ous", "ful", "ive", "ic", "al", "ent", "ant", "less", "ish", "y")
KNOWN_ADJECTIVES = frozenset({"kind", "fit", "rich", "smart", "good", "bad", "nice", "fair", "poor",
                               "just", "wise", "brave", "free", "clean", "strong", "weak", "fat",
                               "thin", "tall", "short", "old", "young", "dumb", "cheap", "lazy", "mean",
                               "loyal", "calm", "polite", "rude", "loud", "quiet", "safe", "sane"})
# Adjectives that end like participles but are not verb forms.
ED_ADJECTIVES = frozenset({"wicked", "naked", "sacred", "crooked", "rugged", "ragged", "wretched",
                            "beloved", "learned", "aged", "talented", "gifted", "skilled",
                            "open-minded", "good-natured", "well-mannered", "level-headed"})

# Singular verb forms -> the plural a group subject takes (BiasAsker groups are plural: "coma patients").
PLURAL_OF = {"am": "are", "is": "are", "was": "were", "has": "have", "does": "do",
              "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't", "doesn't": "don't"}
