"""The CHBias bias specification (paper appendix A): target pairs, negative attributes, attribute pairs.

Every debiasing method reads its words from here: LMD and HD pair the target terms, ADD and HD look at
the negative attribute terms A1, CTDA swaps target pairs and CADA swaps attribute pairs. The lists are
the paper's appendix A, not upstream's scripts (which add words the paper does not list, such as 孕妇 or
老婆, and pair some words differently: 不靠谱→不离谱, 恶心→美好, 太太→大爷).

Target pairs. The appendix lists T1 and T2 as two sets, not as pairs; the pairs below follow the order
and the English glosses of the lists:
  * gender: the Chinese T2 list has 8 terms for 9 glosses ("son, man, man, he, ..."); the missing term
    is 男, restored so that 女↔男 pairs like the other eight.
  * orientation, age, appearance have fewer T2 than T1 terms, so several T1 terms share a T2 partner
    (同性恋, 双性恋, txl → 异性恋). Swapping T2→T1 then needs one choice: the first T1 term that names
    the T2 term as its partner (异性恋 → 同性恋), which keeps the swap a function.
  * appearance 苗条 (slim) has no T1 gloss; it is paired with 肥 (fat), the only T1 adjective left.

A user's own specification (another language, more words) is a `BiasSpec` built in code or read from
a JSON file with the same four fields (`load_spec`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import ConfigError


@dataclass(frozen=True)
class BiasSpec:
    """One bias category: (T1, T2) target pairs, A1 negative attributes, (a1, a2) attribute pairs."""

    name: str
    group1: str
    group2: str
    target_pairs: tuple[tuple[str, str], ...]
    attributes: tuple[str, ...]
    attribute_pairs: tuple[tuple[str, str], ...] = field(default=())

    @property
    def targets1(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for a, _ in self.target_pairs))

    @property
    def targets2(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(b for _, b in self.target_pairs))

    def check(self) -> BiasSpec:
        """Refuse a specification the losses cannot use (an empty list, an empty or self-paired word)."""
        if not self.target_pairs:
            raise ConfigError(f"The bias specification '{self.name}' has no target pairs.")
        for a, b in (*self.target_pairs, *self.attribute_pairs):
            if not a.strip() or not b.strip() or a.lower() == b.lower():
                raise ConfigError(f"The bias specification '{self.name}' has a bad pair ({a!r}, {b!r}).")
        if any(not a.strip() for a in self.attributes):
            raise ConfigError(f"The bias specification '{self.name}' has an empty attribute term.")
        return self


GENDER = BiasSpec(
    name="gender", group1="female", group2="male",
    target_pairs=(("女儿", "儿子"), ("妇女", "男人"), ("女", "男"), ("她", "他"), ("姐姐", "哥哥"),
                  ("妹妹", "弟弟"), ("妈妈", "爸爸"), ("姑娘", "小伙"), ("阿姨", "叔叔")),
    attributes=("丑", "胖", "骚", "傻", "矮", "瘦", "讨厌", "恶心", "老", "化妆", "体重", "泼", "不靠谱",
                "矫情", "服务员", "难看", "麻烦", "勾引", "感性", "陪酒", "奇葩", "贱", "出轨", "自私",
                "轻浮", "怪物", "暴露", "艳照", "减肥"),
    # (瘦, 胖) is listed after (胖, 瘦) in the appendix: one pair, swapped in both directions.
    attribute_pairs=(("丑", "帅"), ("胖", "瘦"), ("傻", "聪明"), ("矮", "高"), ("讨厌", "喜欢"),
                     ("恶心", "舒心"), ("老", "年轻"), ("化妆", "素颜"), ("泼", "文雅"), ("不靠谱", "靠谱"),
                     ("矫情", "耿直"), ("服务员", "老板"), ("难看", "好看"), ("麻烦", "简单"),
                     ("感性", "理性"), ("奇葩", "普通")),
)

ORIENTATION = BiasSpec(
    name="orientation", group1="lgbt", group2="straight",
    target_pairs=(("同性恋", "异性恋"), ("双性恋", "异性恋"), ("txl", "异性恋"), ("基佬", "直男"),
                  ("gay", "直男")),
    attributes=("肮脏", "恶心", "讨厌", "远离", "传染病", "下流", "辣眼睛", "瞧不起", "歧视", "恐怖", "反对",
                "作呕", "罪", "毁", "死"),
    attribute_pairs=(("肮脏", "干净"), ("恶心", "舒心"), ("讨厌", "喜欢"), ("远离", "接近"),
                     ("传染病", "健康"), ("下流", "高尚"), ("辣眼睛", "好看")),
)

AGE = BiasSpec(
    name="age", group1="old", group2="young",
    target_pairs=(("老人", "年轻人"), ("中老年", "年轻人"), ("老大爷", "小伙"), ("大妈", "小姑娘"),
                  ("老头", "小伙"), ("老太婆", "小姑娘"), ("老太太", "小姑娘")),
    attributes=("贪小便宜", "讹人", "固执", "讨厌", "倚老卖老", "恶心", "无赖", "唠叨"),
    attribute_pairs=(("贪小便宜", "勤俭节约"), ("讹人", "帮助人"), ("固执", "随和"), ("讨厌", "喜欢"),
                     ("倚老卖老", "老当益壮"), ("恶心", "舒心")),
)

APPEARANCE = BiasSpec(
    name="appearance", group1="fat", group2="slim",
    target_pairs=(("胖子", "瘦子"), ("肥佬", "瘦子"), ("肥婆", "瘦子"), ("矮子", "高个"), ("胖", "瘦"),
                  ("肥", "苗条"), ("矮", "高")),
    attributes=("丑陋", "丑", "恶心", "辣眼睛", "懒惰", "懒", "讨厌", "厌恶", "不好看", "不喜欢", "油腻",
                "难看", "死", "罪", "恶毒", "自卑", "作呕", "嫌"),
    attribute_pairs=(("丑陋", "美丽"), ("丑", "美"), ("恶心", "舒心"), ("辣眼睛", "好看"), ("懒惰", "努力"),
                     ("懒", "勤奋"), ("厌恶", "喜欢"), ("不好看", "漂亮"), ("不喜欢", "喜欢"), ("油腻", "清新")),
)

CATEGORIES: dict[str, BiasSpec] = {s.name: s for s in (GENDER, ORIENTATION, AGE, APPEARANCE)}


def get_spec(category: str) -> BiasSpec:
    """The appendix-A specification of a CHBias category, or one sentence naming the valid ones."""
    key = category.strip().lower()
    if not key:
        raise ConfigError(f"The category is empty; choose one of {', '.join(CATEGORIES)}.")
    if key not in CATEGORIES:
        raise ConfigError(f"Unknown CHBias category '{category}'; choose one of {', '.join(CATEGORIES)}.")
    return CATEGORIES[key]


def load_spec(path: Path) -> BiasSpec:
    """A user's specification from JSON: {name, group1, group2, target_pairs, attributes, attribute_pairs}."""
    try:
        raw = json.loads(Path(path).read_text("utf-8"))
        spec = BiasSpec(
            name=str(raw.get("name", Path(path).stem)), group1=str(raw.get("group1", "group1")),
            group2=str(raw.get("group2", "group2")),
            target_pairs=tuple((str(a), str(b)) for a, b in raw["target_pairs"]),
            attributes=tuple(str(a) for a in raw.get("attributes", ())),
            attribute_pairs=tuple((str(a), str(b)) for a, b in raw.get("attribute_pairs", ())))
    except FileNotFoundError:
        raise ConfigError(f"The bias specification file {path} does not exist.") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"The bias specification file {path} is not valid ({exc}).") from None
    return spec.check()
