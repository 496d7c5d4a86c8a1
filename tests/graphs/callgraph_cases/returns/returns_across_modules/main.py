from factory import create

create("lex").parse("x")
