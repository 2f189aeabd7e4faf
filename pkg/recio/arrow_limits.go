package recio

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxArrowBuffer bounds one IPC message body and one buffer that the Arrow
// readers allocate. arrow-go allocates what a message declares before it
// reads it: a corrupt stream that declares a 1 TB body, or a compressed
// buffer that claims a 1 TB uncompressed size, is a fatal "out of memory"
// (not a panic that recover can catch). arrow-go v18.8.0 has a body limit,
// but ipc.NewReader does not pass it on to its message reader, and nothing
// bounds an uncompressed size; so the readers take their messages from
// ipc.NewMessageReader and allocate through limitAllocator.
const maxArrowBuffer = 1 << 30

// arrowReadOptions are the options of both Arrow readers.
func arrowReadOptions(mem memory.Allocator) []ipc.Option {
	return []ipc.Option{
		ipc.WithAllocator(limitAllocator{mem}),
		ipc.WithBodySizeLimit(maxArrowBuffer),
	}
}

// limitAllocator refuses, with a panic that the readers recover as an
// error, any one allocation larger than maxArrowBuffer.
type limitAllocator struct{ memory.Allocator }

func (a limitAllocator) Allocate(size int) []byte {
	checkArrowAlloc(size)
	return a.Allocator.Allocate(size)
}

func (a limitAllocator) Reallocate(size int, b []byte) []byte {
	checkArrowAlloc(size)
	return a.Allocator.Reallocate(size, b)
}

func checkArrowAlloc(size int) {
	if size < 0 || size > maxArrowBuffer {
		panic(fmt.Sprintf("a buffer of %d bytes declared, more than the %d MiB a reader allocates at once: corrupt input", size, maxArrowBuffer>>20))
	}
}
