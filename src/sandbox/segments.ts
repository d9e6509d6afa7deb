// SMS segment counting for the `segmentCount` and `encoding` of a message: GSM-7 when every
// character is in the GSM 03.38 basic or extension table (extension characters take two units),
// UCS-2 otherwise (UTF-16 code units). One segment holds 160 / 70 units; a longer text is split
// into 153 / 67-unit parts, never splitting an escape pair or a surrogate pair.

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(Array.from(GSM_BASIC));
const EXTENSION = new Set(Array.from(GSM_EXTENSION));

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  units: number;
  perSegment: number[];
}

function split(costs: number[], single: number, multi: number): number[] {
  const total = costs.reduce((sum, c) => sum + c, 0);
  if (total <= single) return [total];
  const parts: number[] = [];
  let current = 0;
  for (const cost of costs) {
    if (current + cost > multi) {
      parts.push(current);
      current = 0;
    }
    current += cost;
  }
  if (current > 0) parts.push(current);
  return parts;
}

export function countSegments(text: string): SegmentCount {
  const chars = Array.from(text);
  let gsm = true;
  for (const ch of chars) {
    if (!BASIC.has(ch) && !EXTENSION.has(ch)) {
      gsm = false;
      break;
    }
  }
  const costs = chars.map((ch) => (gsm ? (EXTENSION.has(ch) ? 2 : 1) : ch.length));
  const perSegment = gsm ? split(costs, 160, 153) : split(costs, 70, 67);
  return {
    encoding: gsm ? 'GSM-7' : 'UCS-2',
    segments: perSegment.length,
    units: costs.reduce((sum, c) => sum + c, 0),
    perSegment,
  };
}
