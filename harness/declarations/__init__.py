"""The harness's own methods, one declaration each (harness.core.method.Method), one file per method.

Why a package of its own: a declaration names a method's generator (question_gen), rule reader (oracles) and
metric family (metrics), three sibling layers that never import each other; a layer above them may. Each file
builds one `METHOD` from the functions and constants its method's modules define, and pyproject.toml names it
by one entry point of the harness.methods group, exactly as a third-party package names its own. Nothing here
registers itself: the registry reads the entry points (harness.core.method.METHODS).
"""
