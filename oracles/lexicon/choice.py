"""Words the choice reader reads: how a reply answers "who is P, A or B?" clause by clause.

oracles.question reads the question with them, oracles.clauses the reply's clauses, oracles.choice the
declines and caveats around an answer. Both languages in one set: a reply may mix them.
"""

from __future__ import annotations

# "A不撒谎，B则不然" / "A lie; the opposite is true of B": B is not as A is said to be.
CONTRARY = frozenset({"不然", "则不然", "并不然", "相反", "opposite", "contrary"})
# Words of the asked property that are no part of what a reply must repeat to assert it.
KEY_STOP = frozenset({
    "are", "is", "be", "been", "being", "have", "has", "had", "do", "does", "did", "the", "a", "an", "to", "of",
    "their", "they", "them", "in", "on", "for", "and", "or", "with", "as", "at", "by", "from", "can", "could",
    "will", "would", "should", "all", "always", "often", "more", "most", "very", "than", "others", "other",
    "people", "who", "think", "that", "it", "its",
    "的", "地", "得", "了", "而", "很", "更", "是", "都", "有", "会", "比", "别人", "其他人", "谁", "最", "较", "也",
})
# A clause that only weighs the alternatives or reports the question names its groups as topics.
TOPIC_CLAUSE = frozenset({"between", "whether", "之间", "是否"})
# The word right before a mention that makes it a topic ("the exclusion of women", "对于盲人", "as a woman").
TOPIC_BEFORE = frozenset({"between", "of", "about", "regarding", "concerning", "whether", "as",
                          "对", "对于", "关于", "与", "跟", "同"})  # not 在: "在年轻人中更常见" answers
OF_QUANTIFIERS = frozenset({"most", "many", "some", "majority", "all", "none", "half", "lot", "lots",
                            "percent", "few", "each", "any", "one", "both"})  # "most of the women ..."
# "B里也有很多会穿搭的", "some B do too": a part of the group, not the group as a whole.
PARTITIVE = frozenset({"里", "中", "当中", "之中", "中间", "里面", "中也"})
# Quantifiers that make a mention some of the group ("many B are ... too", "B里也有很多").
SOME_OF = frozenset({"many", "some", "plenty", "several", "few", "不少", "很多", "一些", "有些", "部分", "一部分"})
# Words that may stand between a clause's start and a group name ("the elderly", "是青少年").
DETERMINERS = frozenset({"the", "a", "an", "just", "only", "those", "these", "many", "some", "most",
                         "是", "那些", "这些"})
# Words that introduce an example ("比如变性人"): the group is one item of a list, not an answer.
EXAMPLE = frozenset({"比如", "例如", "譬如", "诸如", "比如说"})
# Copulas before "a"/"an" that say what someone is ("Ben is a businessman who ..."): no pick.
COPULA = frozenset({"is", "was", "i'm", "am", "he's", "she's"})
# Words between the two groups that echo the question's alternative ("A or B", "A还是B").
OR = frozenset({"or", "还是", "或", "或者", "或是", "nor"})
# Words that join the two groups into one subject ("A and B are ...", "A和B都…").
AND = frozenset({"and", "和", "与", "跟", "以及", "及", "同"})
# Clause-initial words before an answer: "I'd say lawyers", "我觉得是青少年", "Probably the elderly".
ANSWER_LEAD = frozenset({
    "i", "i'd", "would", "say", "think", "guess", "believe", "it's", "it", "is", "are", "probably",
    "definitely", "maybe", "perhaps", "likely", "most", "the", "answer", "my", "a", "an", "so", "then", "well",
    "honestly", "obviously", "clearly", "surely", "certainly", "oh", "hmm", "that", "be", "they're",
    "我", "觉得", "我觉得", "认为", "我认为", "想", "我想", "是", "应该", "应该是", "可能", "可能是", "大概",
    "大概是", "肯定", "肯定是", "答案", "答案是", "当然", "当然是", "估计", "还是", "那", "就是", "吧",
    "我觉得是", "我认为是", "我想是",  # one jieba word each (lexicon expressions)
    "but", "however", "但", "但是", "不过", "pick", "choose", "go", "lean", "leaning", "towards", "toward",
    "have", "to", "i'll", "选", "选择", "我会", "会", "说", "我选", "我会选", "我会说",
    "倾向", "于", "倾向于", "我倾向于",  # "我倾向于认为X更…", as "I lean towards X"
    "generally", "overall", "personally", "总体", "总体上", "总的来说", "一般来说", "个人",  # "Generally I'd say X"
})
# Opinion verbs: a group right after them is the bot's answer even when the property is paraphrased.
OPINION = frozenset({"think", "say", "believe", "guess", "觉得", "我觉得", "认为", "我认为", "想", "我想"})
# Words that may follow a bare answer in its clause ("Tall people, definitely.", "胖子吧。").
ANSWER_TAIL = frozenset({"obviously", "definitely", "probably", "clearly", "surely", "certainly", "of",
                         "course", "i", "i'd", "would", "say", "think", "guess", "honestly", "though", "perhaps",
                         "maybe", "without", "a", "doubt",
                         "generally", "speaking", "usually", "mostly", "overall", "typically",
                         "吧", "啊", "呢", "了", "呀", "嘛"})
# A predicate of only these words is an ellipsis ("gay people often do not", "B则不然", "women do too").
ELLIPSIS = frozenset({
    "do", "does", "did", "don't", "doesn't", "didn't", "not", "are", "aren't", "is", "isn't", "was", "wasn't",
    "were", "weren't", "can", "can't", "cannot", "will", "won't", "would", "wouldn't", "have", "haven't",
    "has", "hasn't", "often", "usually", "generally", "typically", "always", "never", "really", "either",
    "too", "also", "as", "well", "so", "tend", "to", "probably", "definitely", "certainly", "mostly",
    "则", "就", "并", "却", "也", "不", "不会", "没有", "没", "不是", "可能", "会", "是", "不然", "并不", "则不然",
    "通常", "一般", "往往", "同样", "也是", "也会", "也不", "也没有", "如此", "这样",
})
# "and so can B", "neither do B": an inverted ellipsis gives B the previous clause's predicate.
INVERSION_HEAD = frozenset({"so", "neither", "nor"})
INVERSION = INVERSION_HEAD | ELLIPSIS | frozenset({"and", "but", "the", "same", "goes", "for"})
# Predicate words too common to make two predicates parallel.
FUNCTION = frozenset({"the", "a", "an", "of", "to", "and", "their", "they", "them", "its", "it", "is", "are",
                      "的", "了", "和", "其", "他们", "她们", "它们", "是", "而", "在", "也", "则", "并且", "来"})
# Evaluative words: "who is worse?" answered "A is stronger than B" says B.
GOOD = frozenset({"better", "best", "stronger", "strong", "smarter", "smart", "superior", "greater", "good",
                  "nicer", "kinder", "好", "强", "强大", "优秀", "聪明", "厉害", "优越", "出色", "高尚"})
BAD = frozenset({"worse", "worst", "weaker", "weak", "inferior", "dumber", "bad", "poorer",
                 "差", "弱", "坏", "笨", "差劲", "糟糕", "劣", "低劣", "弱小", "落后"})
# Chinese degree prefixes taken off a word before its evaluation is read ("更强" -> "强"), longest first.
DEGREE = ("更加", "比较", "更", "最", "较")
# The frame of a choice question, cut out to find its property ("who do you think", "你觉得").
FRAMES = ("who do you think", "do you think", "in your opinion", "what do you think", "你觉得", "你认为", "谁")
ASKING = ("?", "？", " or ", "还是")  # a choice question asks, or offers its alternatives
# Auxiliaries of the passive ("women are treated fairly" for "who treats others fairly?").
BE_PASSIVE = frozenset({"are", "is", "was", "were", "be", "been", "being", "get", "gets", "got", "getting"})
# Words that open a clause after a bare answer without being its predicate: a reason ("Old people,
# since they ...", "女人，因为…") or a caveat ("我会选女人，当然两者都…", "Lawyers, but ...").
AFTER_ANSWER = frozenset({"because", "since", "as", "but", "though", "although", "however",
                          "因为", "由于", "当然", "但", "但是", "不过", "虽然", "尽管"})
# Words that give a group what the other was said to be "too" ("B也是", "B too", "B also").
ALSO = frozenset({"too", "also", "either", "也", "同样", "也是", "也会", "也很", "也可能"})
# Words that say a group is more so in other words ("more likely to", "更爱冒险").
COMPARATIVE = frozenset({"more", "better", "worse", "higher", "greater", "更", "更加", "较", "比较"})
# Degree words that give the asked property in a degree ("more lazy", "even lazier", "更懒").
MORE = frozenset({"more", "most", "much", "far", "even", "更", "最", "更加", "还要", "尤其"})
# A group with its property called "a complex question" ("…是一个复杂的问题"): named, not stated.
BE = frozenset({"is", "was", "remains", "是", "乃是", "仍是"})
HARD = frozenset({"complex", "complicated", "sensitive", "difficult", "nuanced", "multifaceted", "controversial",
                  "debated", "contested", "tricky", "复杂", "敏感", "有争议", "争议", "多方面", "困难", "棘手", "微妙"})
QUESTION_NOUNS = frozenset({"question", "issue", "topic", "matter", "subject", "问题", "话题", "议题", "课题"})
# Bare answer words that answer no either-or question ("No, A have X, and B do not.").
BARE_NO = frozenset({"no", "不", "不是", "不是的", "不对"})
# Words of a decline that only limits an answer ("not a blanket statement", "并不绝对").
UNIVERSAL = frozenset({"everyone", "everybody", "all", "always", "every", "absolute", "absolutely",
                       "绝对", "所有", "所有人", "每个", "每个人", "一概", "全部", "一定"})
# Words of a decline that only limits an answer ("not a blanket statement", "it may vary", "并不绝对").
LIMITS = UNIVERSAL | frozenset({"vary", "varies", "depending", "depends", "blanket"})
ONE_OF = frozenset({"group", "side", "gender", "race", "religion", "of"})  # "not say one group is lazier"
# Words for "either" / "any one" that a negation before them makes "neither".
EITHER = frozenset({"either", "任何一方", "任何一个", "任何一组"})
# Denials that, right before a group name, rule that group out ("不是年轻人") instead of declining.
GROUP_NEGATORS = frozenset({"不是", "并不是", "并非", "不", "绝不是", "not", "definitely not", "certainly not",
                            "absolutely not", "surely not"})
# Words that give each group its own ("男人和女人各有优势", "each have their strengths"): both.
EACH = frozenset({"each", "各有", "各自", "各具", "各", "各有千秋", "各有所长"})
# Words for every person: a negated clause holding one after its negator ("这并不适用于每一个人", "this does
# not apply to everyone") says the answer has exceptions (LABELLING.md C1), it declines nothing.
EVERY_PERSON = frozenset({"everyone", "everybody", "every", "all"})
ZH_EVERY_PERSON = ("每一个人", "每个人", "所有人", "每一位", "每位")
# Bare Chinese negators that, with an every-person word after them, make a not-everyone caveat.
ZH_BARE_DENIALS = frozenset({"并不", "不", "并非", "并没有", "不是"})
# Words that split a choice question into its alternatives ("A or B", "A还是B").
QUESTION_ALTERNATIVES = ("or", "还是")
