def to_csv():
    return "csv"


def to_xml():
    return "xml"


EXPORTERS = {"csv": to_csv, "xml": to_xml}


def export_all():
    for name in EXPORTERS:
        EXPORTERS[name]()


export_all()
