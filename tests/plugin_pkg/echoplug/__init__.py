"""echoplug: a third-party plugin of the harness, outside its folders (tests/test_plugin_package.py).

It adds, by one entry point (echoplug-0.1.dist-info/entry_points.txt) naming one declaration (echoplug.method),
everything a new method brings:
a probe kind (`echo_pair`: asked to say an animal's name, does the bot say it back?), its metric family
(`echoplug`: the echo rate per animal, its headline number, report section, leaderboard table and partner
pairs), its rule reader (echoplug.reader) and a suite generator (echoplug.generator, suite echo.yaml). The
kind also declares what a judge model is asked about its replies and the labels a person may give them.
No file of the harness names any of it.
"""
