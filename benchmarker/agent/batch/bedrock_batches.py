"""Bedrock's batch wire: the input JSONL (`recordId`, `modelInput` = an InvokeModel body of the Anthropic messages
form) put to S3, `CreateModelInvocationJob`, `GetModelInvocationJob`, the output
`<output prefix>/<job id>/<input file>.out` read back from S3 (boto3; credentials from the AWS chain)."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlparse

from benchmarker.agent.batch.anthropic_batches import message_reply, split_system
from benchmarker.agent.batch.protocol import BatchReply, BatchRequest, BatchStatus, NotSearchable
from benchmarker.agent.batch.results_file import error_text, good_replies
from benchmarker.agent.batch.wire import BedrockModelInput, BedrockRecord, BedrockResultLine


class BedrockBatches(NotSearchable):
    """Bedrock batch inference for Anthropic models on Bedrock (the InvokeModel messages body)."""

    name, id_chars = "bedrock", 11

    def __init__(self, *, region: str, role_arn: str, s3_uri: str, endpoint_url: str = "", s3_endpoint_url: str = ""):
        import boto3  # type: ignore[import-untyped]

        self._bedrock = boto3.client("bedrock", region_name=region, endpoint_url=endpoint_url or None)
        self._s3 = boto3.client("s3", region_name=region, endpoint_url=s3_endpoint_url or None)
        self._role_arn = role_arn
        parsed = urlparse(s3_uri)
        self._bucket, self._prefix = parsed.netloc, parsed.path.strip("/")

    def _uri(self, *parts: str) -> str:
        return "s3://" + "/".join([self._bucket, *[p for p in (self._prefix, *parts) if p]])

    def _key(self, *parts: str) -> str:
        return "/".join(p for p in (self._prefix, *parts) if p)

    async def submit(self, requests: list[BatchRequest], tags: dict[str, str] | None = None) -> str:
        name = f"mlme-{requests[0].custom_id}-{len(requests)}"
        lines = [json.dumps(self.record(r)) for r in requests]
        await asyncio.to_thread(self._s3.put_object, Bucket=self._bucket, Key=self._key(name, "input.jsonl"),
                                Body="\n".join(lines).encode())
        job = await asyncio.to_thread(
            self._bedrock.create_model_invocation_job, jobName=name, roleArn=self._role_arn,
            modelId=requests[0].model,
            inputDataConfig={"s3InputDataConfig": {"s3Uri": self._uri(name, "input.jsonl")}},
            outputDataConfig={"s3OutputDataConfig": {"s3Uri": self._uri(name, "output") + "/"}})
        return str(job["jobArn"])

    @staticmethod
    def record(r: BatchRequest) -> BedrockRecord:
        """A line of the job's input file: the Messages request as InvokeModel takes it (no `model`)."""
        system, messages = split_system(r.messages)
        body: BedrockModelInput = {"anthropic_version": "bedrock-2023-05-31", "max_tokens": r.max_tokens,
                                   "temperature": r.temperature, "messages": messages}
        if system:
            body["system"] = system
        return {"recordId": r.custom_id, "modelInput": body}

    async def status(self, batch_id: str) -> BatchStatus:
        job = await asyncio.to_thread(self._bedrock.get_model_invocation_job, jobIdentifier=batch_id)
        state = str(job["status"])
        ended = state in ("Completed", "PartiallyCompleted", "Failed", "Stopped", "Expired")
        failed = f"{state}: {job.get('message', '')}".strip(": ") if state in ("Failed", "Stopped", "Expired") else ""
        return BatchStatus(ended=ended, done=0, total=0, state=state, failed=failed)

    async def results(self, batch_id: str) -> list[BatchReply]:
        job = await asyncio.to_thread(self._bedrock.get_model_invocation_job, jobIdentifier=batch_id)
        out = urlparse(job["outputDataConfig"]["s3OutputDataConfig"]["s3Uri"]).path.strip("/")
        key = f"{out}/{batch_id.rsplit('/', 1)[-1]}/input.jsonl.out"
        body = await asyncio.to_thread(self._s3.get_object, Bucket=self._bucket, Key=key)
        return good_replies(body["Body"].read().decode(), f"batch {batch_id} {key}", _bedrock_reply, key="recordId")


def _bedrock_reply(row: BedrockResultLine) -> BatchReply:
    """One line of a Bedrock job's output: the model's message, or the record's error."""
    if row.get("error"):
        return BatchReply(row["recordId"], error=error_text(row["error"]))
    return message_reply(row["recordId"], row.get("modelOutput") or {})
