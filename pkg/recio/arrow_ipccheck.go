package recio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ---- flatbuffer checks ----
//
// arrow-go trusts the lengths in an IPC schema: a corrupt file whose schema
// claims billions of fields or children makes it allocate that many
// (a fatal "out of memory", not a panic that recover can catch), and a
// child offset of 0 makes it recurse forever. So the readers check the
// schema's flatbuffer first: every vector fits in its buffer, offsets point
// forward, nesting is at most 64 deep and the schema has at most 1<<16
// fields. Field numbers below are those of Arrow's Schema.fbs, File.fbs and
// Message.fbs.

const (
	maxSchemaMessage = 16 << 20
	maxSchemaFields  = 1 << 16
	maxSchemaDepth   = 64
)

var errCorruptSchema = errors.New("corrupt Arrow schema metadata")

// readIPCSchemaMessage reads and checks the first message of an IPC stream
// (the schema) and returns the bytes it read.
func readIPCSchemaMessage(r io.Reader) ([]byte, error) {
	head := make([]byte, 8)
	if n, err := io.ReadFull(r, head[:4]); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errors.New("empty input")
		}
		return nil, fmt.Errorf("reading the schema message: %w", err)
	}
	start := 4
	length := binary.LittleEndian.Uint32(head[:4])
	if length == 0xffffffff { // continuation marker, then the length
		if _, err := io.ReadFull(r, head[4:8]); err != nil {
			return nil, fmt.Errorf("reading the schema message: %w", err)
		}
		start = 8
		length = binary.LittleEndian.Uint32(head[4:8])
	}
	if length == 0 {
		return nil, errors.New("no schema: the stream ends at once")
	}
	if length > maxSchemaMessage {
		return nil, fmt.Errorf("schema message of %d bytes: %w", length, errCorruptSchema)
	}
	buf := make([]byte, start+int(length))
	copy(buf, head[:start])
	if _, err := io.ReadFull(r, buf[start:]); err != nil {
		return nil, fmt.Errorf("reading the schema message: %w", err)
	}
	if err := checkMessageSchema(buf[start:]); err != nil {
		return nil, err
	}
	return buf, nil
}

// checkIPCFooter checks the footer of an IPC file: its schema and its
// block lists.
func checkIPCFooter(ra io.ReaderAt, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 8+tail {
		return fmt.Errorf("file of %d bytes is too small", size)
	}
	var t [tail]byte
	if _, err := ra.ReadAt(t[:], size-tail); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	if string(t[4:]) != "ARROW1" {
		return errors.New("no ARROW1 magic at the end: truncated or not an Arrow file")
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if n <= 0 || n > maxSchemaMessage || n > size-tail-8 {
		return fmt.Errorf("footer of %d bytes in a file of %d: %w", n, size, errCorruptSchema)
	}
	footer := make([]byte, n)
	if _, err := ra.ReadAt(footer, size-tail-n); err != nil {
		return fmt.Errorf("reading the footer: %w", err)
	}
	b := fbBuf(footer)
	root, err := b.root()
	if err != nil {
		return err
	}
	schema, ok, err := root.ref(1)
	if err != nil || !ok {
		return errCorruptSchema
	}
	budget := maxSchemaFields
	if err := b.checkSchema(schema, &budget); err != nil {
		return err
	}
	for _, id := range []int{2, 3} { // dictionaries, recordBatches: [Block] (24-byte structs)
		if _, _, err := root.vector(id, 24); err != nil {
			return err
		}
	}
	return b.checkKeyValues(root, 4)
}

// checkMessageSchema checks a Message flatbuffer whose header is a Schema.
func checkMessageSchema(msg []byte) error {
	b := fbBuf(msg)
	root, err := b.root()
	if err != nil {
		return err
	}
	if typ, ok := root.byteField(1); !ok || typ != 1 { // header_type: Schema
		return nil // not a schema: arrow-go reports that itself
	}
	schema, ok, err := root.ref(2)
	if err != nil || !ok {
		return errCorruptSchema
	}
	budget := maxSchemaFields
	return b.checkSchema(schema, &budget)
}

type fbBuf []byte

// fbTable is a table of b at pos, with its vtable.
type fbTable struct {
	b      fbBuf
	pos    int
	vt     int // vtable position
	vtSize int
}

func (b fbBuf) u32(pos int) (uint32, bool) {
	if pos < 0 || pos+4 > len(b) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(b[pos:]), true
}

func (b fbBuf) root() (fbTable, error) {
	off, ok := b.u32(0)
	if !ok || off == 0 {
		return fbTable{}, errCorruptSchema
	}
	return b.table(int(off))
}

func (b fbBuf) table(pos int) (fbTable, error) {
	so, ok := b.u32(pos)
	if !ok {
		return fbTable{}, errCorruptSchema
	}
	vt := pos - int(int32(so))
	if vt < 0 || vt+4 > len(b) {
		return fbTable{}, errCorruptSchema
	}
	vtSize := int(binary.LittleEndian.Uint16(b[vt:]))
	if vtSize < 4 || vtSize%2 != 0 || vt+vtSize > len(b) {
		return fbTable{}, errCorruptSchema
	}
	return fbTable{b: b, pos: pos, vt: vt, vtSize: vtSize}, nil
}

// field returns the position of field id, if present.
func (t fbTable) field(id int) (int, bool) {
	slot := 4 + 2*id
	if slot+2 > t.vtSize {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(t.b[t.vt+slot:]))
	if off == 0 {
		return 0, false
	}
	return t.pos + off, true
}

func (t fbTable) byteField(id int) (byte, bool) {
	p, ok := t.field(id)
	if !ok || p >= len(t.b) {
		return 0, false
	}
	return t.b[p], true
}

// ref follows the offset in field id (a table, vector or string) forward.
func (t fbTable) ref(id int) (int, bool, error) {
	p, ok := t.field(id)
	if !ok {
		return 0, false, nil
	}
	u, ok := t.b.u32(p)
	if !ok || u == 0 || p+int(u) >= len(t.b) {
		return 0, false, errCorruptSchema
	}
	return p + int(u), true, nil
}

// vector returns the length and first element position of vector field id
// with elements of elemSize bytes, checking that it fits in the buffer.
func (t fbTable) vector(id, elemSize int) (n, start int, err error) {
	p, ok, err := t.ref(id)
	if err != nil || !ok {
		return 0, 0, err
	}
	l, ok := t.b.u32(p)
	if !ok || int64(l)*int64(elemSize) > int64(len(t.b)-p-4) {
		return 0, 0, errCorruptSchema
	}
	return int(l), p + 4, nil
}

// tables returns the tables of a vector of tables.
func (t fbTable) tables(id int) ([]fbTable, error) {
	n, start, err := t.vector(id, 4)
	if err != nil || n == 0 {
		return nil, err
	}
	if n > maxSchemaFields {
		return nil, errCorruptSchema
	}
	out := make([]fbTable, n)
	for i := range out {
		e := start + 4*i
		u, _ := t.b.u32(e)
		if u == 0 {
			return nil, errCorruptSchema
		}
		if out[i], err = t.b.table(e + int(u)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b fbBuf) checkSchema(pos int, budget *int) error {
	schema, err := b.table(pos)
	if err != nil {
		return err
	}
	fields, err := schema.tables(1)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if err := b.checkField(f, 1, budget); err != nil {
			return err
		}
	}
	if err := b.checkKeyValues(schema, 2); err != nil {
		return err
	}
	_, _, err = schema.vector(3, 8) // features: [long]
	return err
}

func (b fbBuf) checkField(f fbTable, depth int, budget *int) error {
	*budget--
	if depth > maxSchemaDepth || *budget < 0 {
		return fmt.Errorf("schema nested over %d levels or with over %d fields: %w", maxSchemaDepth, maxSchemaFields, errCorruptSchema)
	}
	if _, _, err := f.vector(0, 1); err != nil { // name
		return err
	}
	if typ, ok := f.byteField(2); ok && typ == 14 { // Type.Union: typeIds [int]
		if p, ok, err := f.ref(3); err != nil {
			return err
		} else if ok {
			u, err := b.table(p)
			if err != nil {
				return err
			}
			if _, _, err := u.vector(1, 4); err != nil {
				return err
			}
		}
	}
	children, err := f.tables(5)
	if err != nil {
		return err
	}
	for _, c := range children {
		if c.pos <= f.pos {
			return errCorruptSchema
		}
		if err := b.checkField(c, depth+1, budget); err != nil {
			return err
		}
	}
	return b.checkKeyValues(f, 6)
}

// checkKeyValues checks a custom_metadata vector of KeyValue tables.
func (b fbBuf) checkKeyValues(t fbTable, id int) error {
	kvs, err := t.tables(id)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		for _, s := range []int{0, 1} {
			if _, _, err := kv.vector(s, 1); err != nil {
				return err
			}
		}
	}
	return nil
}
