def first():
    return 1


def second():
    return 2


table = {"run": first}
table["run"] = second
table["run"]()
