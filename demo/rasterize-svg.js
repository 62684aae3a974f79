// Draws SVG documents as PNG for demo/catalogue.ts, in a process of its own: the server then never
// loads libvips (tens of MB it would keep resident) just for the demo's product pictures. Plain
// JavaScript, so it starts without tsx. Reads a JSON array of SVG texts on stdin and writes a JSON
// array of the PNGs, base64-encoded and in the same order, on stdout.
import { text } from 'node:stream/consumers';
import sharp from 'sharp';

const svgs = JSON.parse(await text(process.stdin));
const pngs = await Promise.all(svgs.map((svg) => sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer()));
process.stdout.write(JSON.stringify(pngs.map((png) => png.toString('base64'))));
