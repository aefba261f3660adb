"""Batch-priced model calls for what does not need an answer now (`[batch]`: the reader, the judge).

The provider's batch API (OpenAI Batch, Anthropic Message Batches, Bedrock batch inference) answers
at about half the price, within up to 24 hours. `model.BatchModel` stands where the reader or the
judge's model stands (same `ainvoke`); `hub.BatchHub` gathers the calls of every case waiting at
once into one batch, writes the batch id to the run directory before it waits (`batches.jsonl`),
and keeps every answer it fetched (`batch_results.jsonl`), so a restarted run picks a submitted
batch up instead of paying for it twice (`journal` reads both, and finds where a damaged journal may
have lost a batch); `apis.batch_api` picks the provider's wire (`openai_batches`, `anthropic_batches`,
`bedrock_batches`, each behind `protocol.BatchAPI`).
"""
