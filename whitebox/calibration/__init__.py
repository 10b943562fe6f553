"""Reinforced calibration (Liu et al., AAAI 2021, section 4): debiasing a causal LM while it generates.

words.py      the liberal / conservative word lists of MODE 1, mapped to the model's vocabulary
objective.py  the debias gains (eq. 5-8), the reward (eq. 4), the KL constraint and lambda's adaptation
head.py       f_debias of MODE 2: a classifier head on the LM's own hidden states, trained and saved
decode.py     Algorithm 1, one token at a time, on transformers' DynamicCache
adapter.py    the calibrated model as a target (`adapter = "hf-calibrated"`)
"""
