"""Debiasing open causal LMs for CHBias (LMD, ADD, HD, CADA, CTDA); see docs/debias.md."""
