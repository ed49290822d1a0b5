builtin_str = str
basestring = (str, bytes)
