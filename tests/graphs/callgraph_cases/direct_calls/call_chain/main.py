def parse():
    return tokenize()


def tokenize():
    return split_words()


def split_words():
    return 3


def unused():
    return 0


parse()
