// Package batch runs the rounds of --batch over the OpenAI Batch API for
// the clients of one program run: it writes each pass's requests to input
// files, uploads them and creates the batches, waits for them, and feeds
// their replies back to the clients (pkg/llm answers the calls of the
// next pass from them). Everything is kept in a state directory, so that
// a rerun picks up the batches in flight.
package batch
