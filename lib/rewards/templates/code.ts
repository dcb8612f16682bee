// Code-reward templates shipped with the product, after the reward platform's documented examples. Each defines
// cal_reward(payload), where payload is the platform's JSON string: {"input", "reference_output", "trajectory":
// {"root": {"output": final reply}, "steps": [{"type": "tool", "name", "input": JSON string of the arguments,
// "output"}, …]}}. None of them catches exceptions: a reward that catches every exception and returns 0 hides a
// broken reward behind rollouts that look wrong; one that raises is recorded by Verity as an error, with its
// traceback, and never as a 0.

export type CodeTemplate = { id: string; name: string; description: string; source: string };

const HEADER = `import json

# Let it raise: catching every exception and returning 0 hides a broken reward.
# Verity records a raised exception as this rollout's error (with its traceback), never as a 0.
`;

// The reference as text: a string as it is, any other JSON value as JSON.
const REFERENCE = `
def reference_text(data):
    ref = data["reference_output"]
    return ref if isinstance(ref, str) else json.dumps(ref)
`;

// The arguments of each call of the named tool, parsed from their JSON string.
const TOOL_CALLS = `
TOOL_NAME = "query_line_status"


def tool_calls(data):
    steps = data["trajectory"].get("steps", [])
    return [s for s in steps if s.get("type") == "tool" and s.get("name") == TOOL_NAME]
`;

export const CODE_TEMPLATES: CodeTemplate[] = [
  {
    id: "reply_equals_reference",
    name: "Reply equals the reference",
    description: "1 when the final reply, trimmed, is the reference output; else 0.",
    source: `${HEADER}${REFERENCE}

def cal_reward(payload):
    data = json.loads(payload)
    reply = data["trajectory"]["root"]["output"]
    return 1.0 if reply.strip() == reference_text(data).strip() else 0.0
`,
  },
  {
    id: "reply_contains_reference",
    name: "Reply contains the reference",
    description: "1 when the reference output appears in the final reply (ignoring case); else 0.",
    source: `${HEADER}${REFERENCE}

def cal_reward(payload):
    data = json.loads(payload)
    reply = data["trajectory"]["root"]["output"]
    return 1.0 if reference_text(data).strip().lower() in reply.lower() else 0.0
`,
  },
  {
    id: "tool_called",
    name: "A named tool was called",
    description: "1 when the trajectory calls the tool TOOL_NAME at least once; else 0.",
    source: `${HEADER}${TOOL_CALLS}

def cal_reward(payload):
    data = json.loads(payload)
    return 1.0 if tool_calls(data) else 0.0
`,
  },
  {
    id: "tool_argument_equals_reference",
    name: "A tool's argument equals the reference",
    description: "1 when a call of TOOL_NAME has ARGUMENT (parsed from its JSON string) equal to the reference.",
    source: `${HEADER}${REFERENCE}${TOOL_CALLS}
ARGUMENT = "line_id"


def cal_reward(payload):
    data = json.loads(payload)
    for call in tool_calls(data):
        args = call.get("input", "{}")
        args = json.loads(args) if isinstance(args, str) else args
        if str(args.get(ARGUMENT)) == reference_text(data):
            return 1.0
    return 0.0
`,
  },
  {
    id: "answer_and_tool",
    name: "0.7 × answer + 0.3 × tool",
    description: "0.7 when the reply contains the reference, plus 0.3 when TOOL_NAME was called.",
    source: `${HEADER}${REFERENCE}${TOOL_CALLS}

def cal_reward(payload):
    data = json.loads(payload)
    reply = data["trajectory"]["root"]["output"]
    answer = 1.0 if reference_text(data).strip().lower() in reply.lower() else 0.0
    tool = 1.0 if tool_calls(data) else 0.0
    print(0.7 * answer + 0.3 * tool)
`,
  },
];

/** The template of `id`; throws for an unknown one (the ids are the product's own). */
export function codeTemplate(id: string): CodeTemplate {
  const t = CODE_TEMPLATES.find((c) => c.id === id);
  if (!t) throw new Error(`no code template "${id}"`);
  return t;
}
