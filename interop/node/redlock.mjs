// node-redlock (with ioredis) on a name Coordis also locks: on one Redis (a majority of one) or on several
// independent masters. The test suite runs it beside Coordis holders under the test kit's FencedResource.
//
//   node redlock.mjs --redis H:P[,H:P...] --name KEY --holds N --ttl-ms T --fenced H:P --client ID
//
// Prints one JSON summary line on stdout. Credentials, when the servers want them, come from
// $INTEROP_REDIS_USER / $INTEROP_REDIS_PASSWORD so that they stay out of the process list.
import net from "node:net";
import readline from "node:readline";
import { parseArgs } from "node:util";
import Redis from "ioredis";
import Redlock, { ExecutionError } from "redlock";

const { values: args } = parseArgs({
  options: {
    redis: { type: "string" },
    name: { type: "string" },
    holds: { type: "string" },
    "ttl-ms": { type: "string", default: "5000" },
    fenced: { type: "string" },
    client: { type: "string" },
  },
});
for (const required of ["redis", "name", "holds", "fenced", "client"]) {
  if (!args[required]) {
    console.error(`missing --${required}; usage: node redlock.mjs --redis H:P[,H:P...] --name KEY --holds N `
      + "--ttl-ms T --fenced H:P --client ID");
    process.exit(64);
  }
}

/** The test kit's FencedResource line protocol: VERB client token, one answer line per request. */
async function fencedResource(address, client) {
  const [host, port] = [address.slice(0, address.lastIndexOf(":")), Number(address.slice(address.lastIndexOf(":") + 1))];
  const socket = net.createConnection({ host, port, noDelay: true });
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  const lines = readline.createInterface({ input: socket })[Symbol.asyncIterator]();
  return async (verb, token) => {
    socket.write(`${verb} ${client} ${token}\n`);
    const { value } = await lines.next();
    if (!value || value === "ERR") {
      throw new Error(`fenced resource answered ${value} to ${verb}`);
    }
    return value;
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const clients = args.redis.split(",").map((address) => {
  const colon = address.lastIndexOf(":");
  return new Redis({
    host: address.slice(0, colon),
    port: Number(address.slice(colon + 1)),
    username: process.env.INTEROP_REDIS_USER || undefined,
    password: process.env.INTEROP_REDIS_PASSWORD || undefined,
    maxRetriesPerRequest: 1,
  });
});
// short retries with jitter, so that this client competes with Coordis's woken waiters
const redlock = new Redlock(clients, { retryCount: 500, retryDelay: 10, retryJitter: 5 });
const call = await fencedResource(args.fenced, args.client);
const ttl = Number(args["ttl-ms"]);

/** Validity a hold must have left to start: far more than the hold's few milliseconds. */
const MARGIN_MS = 100;
let held = 0;
let expired = 0;
let lost = 0;
let busy = 0;
const deadline = Date.now() + 45_000;
while (held < Number(args.holds)) {
  let lock;
  try {
    lock = await redlock.acquire([args.name], ttl);
  } catch (e) {
    if (!(e instanceof ExecutionError) || Date.now() > deadline) {
      throw new Error(`gave up after ${held} holds: ${e.message}`);
    }
    busy++; // no quorum within the retries: try again
    continue;
  }
  if (lock.expiration - Date.now() > MARGIN_MS) {
    // no fencing number: the resource judges these holds by overlap only
    await call("ENTER", 0);
    await sleep(1 + Math.random() * 3);
    await call("EXIT", 0);
    held++;
  } else {
    // validity (node-redlock measures it from before its retries) too short to use: let go and try again
    expired++;
  }
  // a release that finds the value gone from a majority is a hold lost while it was believed held
  await redlock.release(lock, { retryCount: 0 }).catch(() => lost++);
  await sleep(Math.random() * 3);
}
console.log(JSON.stringify({ event: "done", client: args.client, held, expired, lost, busy }));
await Promise.all(clients.map((c) => c.quit()));
process.exit(0);
