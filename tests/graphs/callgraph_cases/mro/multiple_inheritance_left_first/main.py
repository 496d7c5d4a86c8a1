class Reader:
    def open(self):
        return "reader"


class Writer:
    def open(self):
        return "writer"

    def flush(self):
        return 0


class ReadWrite(Reader, Writer):
    def sync(self):
        self.open()
        self.flush()


rw = ReadWrite()
rw.sync()
rw.open()
