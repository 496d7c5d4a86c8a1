class Parser:
    def parse(self, text):
        return text


class Lexer:
    def parse(self, text):
        return text


def create(kind):
    if kind == "lex":
        return Lexer()
    return Parser()
