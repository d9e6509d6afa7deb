import { Parser } from 'csv-parse';
const opts={bom:true,trim:true,relax_column_count:true,skip_empty_lines:true,skip_records_with_empty_values:true,skip_records_with_error:true,info:true,raw:true, record_delimiter:['\r\n','\n','\r']};
const out=[];
const p=new Parser({...opts, on_skip:(err,raw)=>out.push(`SKIP ${err.code} lines=${err.lines} raw=${JSON.stringify(raw)} ${err.message}`)});
const push=(r)=>out.push(`${JSON.stringify(r.record)} lines=${r.info.lines} raw=${JSON.stringify(r.raw)}`);
const src=process.argv[2] ?? '\uFEFFa,b\r\n 1 , " x " \n\n,,\n1,x"y\n1,"x"y\n2,3\n4,"multi\nline"\n5,"open\n';
for (const ch of src.match(/[\s\S]{1,7}/g)) { const e=p.api.parse(Buffer.from(ch), false, push, ()=>{}); if(e) out.push('ERR '+e.message) }
const e=p.api.parse(undefined, true, push, ()=>{}); if(e) out.push('ERRend '+e.code+' '+e.message);
console.log(out.join('\n'));
