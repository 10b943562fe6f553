"""A second reader: any configured target as the oracle's judge, and a confidence for every rule verdict.

The rules (harness.oracles) agree with a person on about 83% of English and 88% of Chinese replies they
were never tuned on; a model that reads the reply is how promptfoo, inspect_ai and DeepEval close such a
gap, and agreement measured against people is how they keep it honest. This package holds:

  prompts     the bilingual judge questions a kind's JudgeSpec names (or its own), the reply framed as untrusted data
  answers     strict reading of a judge's answer (label probabilities first, the answer's first word else)
  verdicts    judge readings -> Verdicts as the kind declares: both group orders, several judges by majority
  asking      judge questions through the run engine (concurrency, rpm, retries, errors apart, resume, cache)
  reading     the modes rules / judge / hybrid (`read_replies`), and the checks made before anything is asked
  confidence  each rule verdict's confidence: its reading path's accuracy on the tuned labelled batches
  labelled    the hand-labelled replies of tests/data; evaluate: `harness oracle-eval` over them

Layer: above harness.run (a judge is asked by the run engine), below harness.score (scoring reads with it).
"""
