/**
 * Success bodies are assembled as text around JSON that Postgres already built, so a record is
 * never parsed and re-serialised on its way out.
 */
export function successBody(dataJson: string, requestId: string, extra = ''): string {
  return `{"data":${dataJson}${extra},"status":"success","requestId":${JSON.stringify(requestId)}}`;
}
