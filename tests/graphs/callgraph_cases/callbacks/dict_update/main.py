def load():
    return "load"


def save():
    return "save"


table = {}
table.update({"load": load})
table.update(save=save)
table["load"]()
table["save"]()
