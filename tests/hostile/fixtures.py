#!/usr/bin/env python3
"""Writes the files of the hostile corpus that are awkward to keep by hand (NUL bytes, BOMs,
SQLite stores). Run from the project root after `make roofcost`; the files are committed, so
`make test` does not need Python. Each case and what it must give: cases.txt."""
import os, shutil, sqlite3, subprocess, tempfile

H = 'tests/hostile'


def put(name, data):
    with open(os.path.join(H, name), 'wb') as f:
        f.write(data)


def text(path):
    with open(path, 'rb') as f:
        return f.read()


serve = text('workloads/llama3-8b-serve.ini')
p5 = text('models/hw/systems/p5.48xlarge.ini')
trn2 = text('models/hw/systems/trn2.48xlarge.ini')
h100 = text('models/hw/chips/h100-sxm.ini')
llama = text('models/nn/llama3-8b.ini')

# Class 4: NUL bytes. A hidden key after a NUL in a comment; text after a NUL in a value.
put('nul-in-comment.ini', serve.replace(b'[infer]\n', b'[infer]\n; tuned\x00\ntpot_slo = 1 ms\n', 1)
    .replace(b'name = llama3-8b-serve', b'name = nul-in-comment'))
put('nul-in-value.ini', h100.replace(b'\nname = h100-sxm', b'\nname = nul-in-value', 1)
    .replace(b'TB/s', b'TB/s\x00junk', 1))
put('nul-value-system.ini', p5.replace(b'name = p5.48xlarge', b'name = nul-value-system', 1)
    .replace(b'chip = h100-sxm', b'chip = nul-in-value.ini', 1))
# Class 5: a BOM before a section that comes again; an unclosed header; a long section name.
put('bom-dup-section.ini', b'\xef\xbb\xbf' + p5.replace(b'name = p5.48xlarge', b'name = bom-dup-section', 1)
    + b'\n[system]\nname = again\n')
put('unclosed-section.ini', p5.replace(b'name = p5.48xlarge', b'name = unclosed-section', 1)
    .replace(b'\n[node]', b'\n[node', 1))
put('long-section.ini', p5.replace(b'name = p5.48xlarge', b'name = long-section', 1)
    + b'\n[' + b'n' * 60 + b']\n')
put('torus-dims.ini', trn2.replace(b'name = trn2.48xlarge', b'name = torus-dims', 1)
    .replace(b'dims = 4x4', b'dims = 100000x100000x100000', 1))
nn = llama.replace(b'name = llama3-8b', b'name = head-dim-zero', 1).replace(b'hidden = 4096', b'hidden = 16', 1)
put('head-dim-zero.ini', b'\n'.join(l for l in nn.split(b'\n') if not l.startswith(b'head_dim')))
put('experts-huge.ini', llama.replace(b'name = llama3-8b', b'name = experts-huge', 1)
    .replace(b'[network]\n', b'[network]\nexperts = 100000\nexperts_active = 100000\nexpert_ffn = 10000000\n', 1))

HDR = b'provider,instance,region,pricing_model,usd_per_hour,unit,accelerators,as_of,source\n'
row = lambda usd, src=b'src': HDR + b'hostile,p5.48xlarge,us-east-1,on-demand,' + usd + b',instance,8,2025-06-01,' + src + b'\n'
put('price-1e308.csv', row(b'1e308'))
put('price-1e-300.csv', row(b'1e-300'))
put('price-24-digits.csv', row(b'1.00000000000000000000001'))
put('unverified-unquoted.csv', row(b'98.32', b'UNVERIFIED: recalled'))
put('unverified-no-space.csv', row(b'98.32', b'UNVERIFIED:recalled'))
put('escape-source.csv', row(b'98.32', b'"\x1b[2J\x1b]0;owned\x07"'))
# Issue 21: a formula for a spreadsheet, a price dated in the future, a line break in a
# quoted field; a workload whose name and description are HTML.
put('formula-source.csv', row(b'98.32', b'"=HYPERLINK(""http://example.invalid"",""prices"")"'))
put('future-price.csv', HDR + b'hostile,p5.48xlarge,us-east-1,on-demand,1.00,instance,8,2099-01-01,a price of the future\n')
put('newline-source.csv', row(b'98.32', b'"line one\nline two"'))
put('xss-workload.ini', serve.replace(b'name = llama3-8b-serve', b'name = <img src=x onerror=alert(1)>', 1)
    .replace(b'description = ', b'description = <script>alert(2)</script> ', 1))

# Validation case files: a duplicated column, a huge layout, training rows only.
cases = text('tests/validation/public.csv').split(b'\n')
hdr = cases[0].split(b',')
first_train = next(l for l in cases[1:] if l.split(b',')[1] == b'train')
put('validate-dup-column.csv', cases[0] + b',kind\n' + first_train + b',train\n')
cells = first_train.split(b',')
cells[hdr.index(b'tp')] = b'20000'
cells[hdr.index(b'pp')] = b'10000'
cells[hdr.index(b'chips')] = b'1024'
put('validate-huge-layout.csv', cases[0] + b'\n' + b','.join(cells) + b'\n')
put('validate-train-only.csv', cases[0] + b'\n' + first_train + b'\n')

# Stores. A real one first (roofcost creates it), then each hostile variant of it.
tmp = tempfile.mkdtemp()
base = os.path.join(tmp, 'base.db')
env = dict(os.environ, ROOFCOST_DB=base)
subprocess.run(['./roofcost', 'list', 'prices'], env=env, check=True, stdout=subprocess.DEVNULL)


def store(name, *sql):
    path = os.path.join(H, name)
    shutil.copy(base, path)
    c = sqlite3.connect(path)
    c.execute('PRAGMA journal_mode = DELETE')
    for s in sql:
        c.execute(s)
    c.commit()
    c.execute('VACUUM')
    c.close()
    for sfx in ('-wal', '-shm'):
        if os.path.exists(path + sfx):
            os.remove(path + sfx)
    return path


c = sqlite3.connect(base)
c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
c.close()
store('negative.db', 'PRAGMA user_version = -1')
store('newer.db', 'PRAGMA user_version = 99')
# Price rows refuse UPDATE (schema 4): these two forge theirs around the trigger.
NO_UPDATE = ("CREATE TRIGGER price_no_update BEFORE UPDATE ON price BEGIN SELECT RAISE(ABORT, "
             "'prices are history: a new price is a new row with a later as_of'); END")
store('huge-price.db', 'DROP TRIGGER price_no_update',
      "UPDATE price SET usd_per_hour = 1e63 WHERE instance = 'p5.48xlarge'", NO_UPDATE)
store('formula-source.db', 'DROP TRIGGER price_no_update',
      "UPDATE price SET source = '=HYPERLINK(\"http://example.invalid\",\"prices\")' WHERE instance = 'p5.48xlarge'",
      NO_UPDATE)
store('escape-source.db', 'DROP TRIGGER price_no_update',
      "UPDATE price SET source = 'evil ' || char(27) || '[2J' || char(7) || ' cr' || char(13) || "
      "' a | b' WHERE instance = 'p5.48xlarge'", NO_UPDATE)
path = store('corrupt.db')
b = bytearray(text(path))
for p in range(4096, len(b) - 8, 4096):
    b[p + 3] = b[p + 4] = 0x7f
put('corrupt.db', bytes(b))
f = os.path.join(H, 'foreign.db')
if os.path.exists(f):
    os.remove(f)
c = sqlite3.connect(f)
c.execute('CREATE TABLE notes (x TEXT)')
c.execute("INSERT INTO notes VALUES ('not roofcost')")
c.commit()
c.close()
put('not-sqlite.db', b'provider,instance\nthis is a CSV file named like a store' + b'.' * 100 + b'\n')
shutil.rmtree(tmp)
