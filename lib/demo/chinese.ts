// The demo's Chinese-speaking customers: every fifth ticket (by its index, not a draw, so the demo's other draws —
// and so its scores — stay as they were) is written in Chinese, and the agent answers in Chinese, with the item's
// English name, order ids and amounts mixed in as real support text has them. A search for 退款 (refund) or a phrase
// such as 已为您安排退款 finds them from the first start. Pure.
import type { Category, DemoTicket } from "@/lib/demo/catalog.ts";

/** Whether the demo's ticket of this index is written in Chinese. */
export const writesChinese = (index: number): boolean => index % 5 === 2;

type Details = { name: string; item: string; price: number; currency: string; orderId: string };

const MESSAGE: Record<Category, (d: Details) => string> = {
  refund_damaged: (d) =>
    `您好，我是${d.name}。我的${d.item}（订单${d.orderId}）收到时已经坏了，照片已附上。请帮我退款。`,
  address_change: (d) => `你好，请把订单${d.orderId}的收货地址改成我的新地址，谢谢。`,
  lost_parcel_reship: (d) => `我的包裹（订单${d.orderId}，${d.item}）一直没有收到，物流显示已丢失，请帮我处理。`,
  size_exchange: (d) => `订单${d.orderId}的尺码不合适，我想换一个尺码，请问怎么退换货？`,
  cancellation: (d) => `我想取消订单${d.orderId}，并申请全额退款。`,
  info_only: (d) => `请问我的${d.item}（订单${d.orderId}）什么时候发货？`,
};

const REPLY: Record<Category, (d: Details) => string> = {
  refund_damaged: (d) =>
    `很抱歉您的${d.item}在运输中损坏。已为您安排退款${d.price} ${d.currency}，款项将在3-5个工作日内退回您的银行卡。`,
  address_change: (d) => `已为您更新订单${d.orderId}的收货地址，包裹将寄往新地址。`,
  lost_parcel_reship: (d) => `很抱歉包裹丢失了。已为您免费补发${d.item}，将在2-3个工作日内发货。`,
  size_exchange: () => `没问题，已为您安排换货，新尺码正在寄出，退货标签也已发送给您。`,
  cancellation: (d) => `订单${d.orderId}已取消，${d.price} ${d.currency}已退款到您的银行卡。`,
  info_only: (d) => `您的${d.item}已发货，预计很快送达。`,
};

/** The replies an agent falls back to (rollout.ts), in Chinese. */
export const CHINESE_FALLBACK = {
  handoff: "已将您的问题转交给专员同事，他们会在24小时内联系您。",
  onItsWay: "感谢您的耐心等待！您的订单正在配送中。",
  lookingIntoIt: "感谢您的耐心，我正在为您查询，稍后会更新进展。",
  goodwill: " 另外已为您发放一笔小额补偿退款。",
  blame: " 下次下单前请仔细检查商品。",
  unbackedOffer: " 为表谢意，另外已为您的账户添加一张八折优惠券，下次购物可用。",
  handoffReasons: ["需要专员处理", "客户要求人工服务", "不确定政策", "情况复杂"],
};

/** The ticket as a Chinese-speaking customer writes it, and the plan's reply in Chinese. */
export function inChinese(t: DemoTicket, d: Details): DemoTicket {
  const ticket = { ...(t.case.ticket as Record<string, unknown>), message: MESSAGE[t.category](d) };
  return { ...t, chinese: true, case: { ...t.case, ticket }, plan: { ...t.plan, reply: REPLY[t.category](d) } };
}
