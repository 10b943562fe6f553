"""How people name the groups a probe asks about: synonyms, plurals, faiths and translations.

oracles.groups reads a group's mentions through these lists: a reply rarely repeats the question's exact
wording ("the elderly" for "old people", "女性" for "女人", "Islam" for "Muslims", "women" answering a
Chinese question in English).
"""

from __future__ import annotations

# Head nouns a group name may carry or drop ("deaf", "deaf people", "deaf folks").
HEADS = ("people", "person", "persons", "individuals", "individual", "folks", "folk", "ones")
# Plurals (and singulars) that adding or dropping "s" does not give.
IRREGULAR = {"men": "man", "women": "woman", "people": "person", "children": "child",
             "businessmen": "businessman", "businessman": "businessmen", "man": "men", "woman": "women"}
# Common Chinese synonyms of group names (a reply rarely repeats the question's exact wording).
ZH_SYNONYMS: dict[str, tuple[str, ...]] = {
    "女人": ("女性", "妇女", "女士", "女生", "女孩"), "男人": ("男性", "男士", "男生", "男孩"),
    "老年人": ("老人", "老年", "长者", "年长者"), "年轻人": ("青年", "年轻一代", "年轻的人"),
    "中年人": ("中年",), "退休的人": ("退休人员", "退休者", "退休人士", "退休老人"),
    "残疾人": ("残障人士", "残疾人士", "残障", "残疾"), "聋哑人": ("聋人", "聋哑", "听障"),
    "盲人": ("视障", "失明"), "健全的人": ("健全人", "健康的人"),
    "患有侏儒症的人": ("侏儒症患者", "侏儒"), "白人": ("白种人",), "黑人": ("黑种人",),
    "亚洲人": ("亚裔",), "印第安人": ("美洲原住民", "原住民"), "太平洋岛民": ("岛民",),
    "犹太人": ("犹太",), "穆斯林": ("伊斯兰教徒",), "基督徒": ("基督教徒",), "佛教徒": ("佛教信徒",),
    "无神论者": ("无神论",), "政客": ("政治家",), "商人": ("企业家", "生意人"),
    "胖的人": ("胖子", "胖人", "肥胖的人", "肥胖者"), "瘦的人": ("瘦子", "瘦人", "偏瘦的人"),
    "高的人": ("高个子", "个子高的人", "高个"), "矮的人": ("矮个子", "个子矮的人", "矮个"),
    "变性人": ("跨性别",), "男同性恋": ("男同", "同性恋男性"), "女同性恋": ("女同", "同性恋女性"),
    "非二元性别的人": ("非二元",),
}
# Common English synonyms of group names (a reply rarely repeats the question's exact wording).
EN_SYNONYMS: dict[str, tuple[str, ...]] = {
    "young people": ("youth", "youths", "the young", "youngsters", "young adults"),
    "young adults": ("young people", "youth", "the young"),
    "old people": ("the elderly", "elderly people", "older people", "older adults", "seniors", "senior citizens"),
    "elderly people": ("the elderly", "old people", "older people", "older adults", "seniors", "senior citizens"),
    "middle-aged people": ("middle-aged adults", "the middle-aged"),
    "retired people": ("retirees", "the retired", "pensioners"),
    "teenagers": ("teens", "adolescents"),
    "disabled people": ("people with disabilities", "the disabled"),
    "able-bodied people": ("non-disabled people",),
    "people with dwarfism": ("dwarfs", "little people"),
    "fat folks": ("fat people", "overweight people", "obese people"),
    "overweight people": ("fat people", "obese people"),
    "skinny folks": ("skinny people", "thin people"),
    "thin people": ("skinny people", "slim people"),
    "women": ("females", "ladies"), "men": ("males", "gentlemen"),
    "black people": ("blacks", "african americans"), "white people": ("whites", "caucasians"),
    "asian people": ("asians",), "native american people": ("indigenous people", "native people"),
    "latino people": ("latinos", "latinas", "hispanics"), "arab people": ("arabs",),
    "transgender people": ("trans people",), "non-binary people": ("nonbinary people", "enby people"),
    "lesbian people": ("lesbians",), "bisexual people": ("bisexuals",), "gay people": ("gay men", "gays"),
    "businessman": ("business people", "businesspeople", "entrepreneurs"),
    "wheelchair users": ("people in wheelchairs",),
}
# A faith named for its people ("Christianity and Jews should ..."); -ian/-ist names get -ianity/-ism.
FAITHS = {"muslims": "islam", "muslim": "islam", "jews": "judaism", "jewish": "judaism", "hindus": "hinduism",
          "hindu": "hinduism", "sikhs": "sikhism", "sikh": "sikhism", "catholics": "catholicism",
          "catholic": "catholicism", "mormons": "mormonism", "mormon": "mormonism"}
# Endings of a faith's name: "in Buddhism, ..." is a setting, not the group answering.
FAITH_ENDS = ("ism", "ianity", "islam")
# The same in Chinese ("基督教" answered for 基督徒); any "X教徒" is named by "X教" too (see aliases).
ZH_FAITHS = {"基督徒": "基督教", "穆斯林": "伊斯兰教", "犹太人": "犹太教", "天主教徒": "天主教"}
# English names of the Chinese suites' groups: a bot may answer a Chinese question in English.
ZH_IN_ENGLISH: dict[str, tuple[str, ...]] = {
    "男人": ("men",), "男性": ("men",), "女人": ("women",), "女性": ("women",),
    "老年人": ("old people", "elderly people"), "年轻人": ("young people",), "中年人": ("middle-aged people",),
    "青少年": ("teenagers",), "退休的人": ("retired people",), "残疾人": ("disabled people",),
    "健全的人": ("able-bodied people",), "聋哑人": ("deaf people",), "聋人": ("deaf people",),
    "盲人": ("blind people",), "患有侏儒症的人": ("people with dwarfism",), "白人": ("white people",),
    "黑人": ("black people",), "亚洲人": ("asian people",), "亚裔": ("asian people",),
    "印第安人": ("native american people",), "太平洋岛民": ("pacific islanders",), "拉丁裔": ("latino people",),
    "阿拉伯人": ("arab people",), "犹太人": ("jews",), "穆斯林": ("muslims",), "基督徒": ("christians",),
    "佛教徒": ("buddhists",), "印度教徒": ("hindus",), "无神论者": ("atheists",), "农民": ("farmers",),
    "工人": ("workers",), "商人": ("businessman",), "政客": ("politicians",), "科学家": ("scientists",),
    "律师": ("lawyers",), "护士": ("nurses",), "程序员": ("programmers",), "卡车司机": ("truck drivers",),
    "胖的人": ("fat folks",), "体重超重的人": ("overweight people",), "瘦的人": ("skinny folks",),
    "偏瘦的人": ("thin people",), "高的人": ("tall people",), "高个子的人": ("tall people",),
    "矮的人": ("short people",), "矮个子的人": ("short people",), "坐轮椅的人": ("wheelchair users",),
    "有阅读障碍的人": ("people with dyslexia",), "自闭症人士": ("autistic people",),
    "变性人": ("transgender people",), "跨性别者": ("transgender people",), "男同性恋": ("gay people",),
    "女同性恋": ("lesbian people",), "双性恋": ("bisexual people",), "非二元性别的人": ("non-binary people",),
    "非二元性别者": ("non-binary people",),
}
# Number words that group names also write in digits ("forty-something" / "40-something").
NUMBER_WORDS = {"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
                "eighty": "80", "ninety": "90"}
# A group's usual opposite: a reply that sets the asked group against it answers another question.
COUNTERPARTS = {"men": "women", "women": "men", "男人": "女人", "女人": "男人", "男性": "女性", "女性": "男性",
                "old people": "young people", "young people": "old people", "老年人": "年轻人", "年轻人": "老年人"}
